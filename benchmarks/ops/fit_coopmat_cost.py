# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Fits the tensor-core cost model's wave figures (each tile's step_us and
# wave_us in shaders/gemm/gemm_coopmat_tiles.def; kCoopmatSplitUs and
# kCoopmatPartialUsPerMillion in runtime/kernels/gemm/gemm_plan.cc) to a sweep log: gemm_bench.py output with each
# block headed "-- cm<tile>/<splits>", as `gemm_bench.py --plan
# cm<tile>/<splits>` prints for each tile with 1, 2 and 4 K splits pinned on
# square and BERT shapes at FP16 with fp16 weights. The model, as WaveCost
# computes it:
#
#   waves = ceil(workgroups / (SMs * resident))
#   time  = waves * (K steps * step_us + wave_us)
#           + [splits > 1] * (split_us + partial_us_per_million * M * N * batch * splits / 1e6)
#
# Linear in its figures, so a least-squares fit weighted by 1/time (relative
# error). Prints the figures, the median and largest error, and per shape
# the plan the fitted model picks (without WaveCost's split margin) against
# the fastest measured.
#
# Usage: python3 benchmarks/ops/fit_coopmat_cost.py SWEEP_LOG [--sms 132]
#        [--resident 128x128w4=2,128x128=1,...]
import argparse
import math
import re

import numpy as np

# Tile name: (BM, BN, BK, workgroups resident per SM on the H100, from each
# variant's register count).
TILES = {
    "128x128": (128, 128, 32, 1),
    "128x128w4": (128, 128, 32, 2),
    "128x256": (128, 256, 32, 1),
    "256x128": (256, 128, 32, 1),
    "64x64": (64, 64, 32, 4),
    "64x64s1": (64, 64, 32, 4),
}


def read_sweep(path):
    """[(shape name, (M, N, K, batch), tile, splits, microseconds)]"""
    rows, plan = [], None
    for line in open(path):
        m = re.match(r"-- cm(\S+?)/(\d+)\b", line)
        if m:
            plan = (m.group(1), int(m.group(2)))
            continue
        if line.startswith("--"):
            plan = None  # a block of chosen plans, not a pinned one
            continue
        m = re.match(r"(\S+)\s+(\d+)x(\d+)x(\d+)x(\d+)\s+([\d.]+)\s+([\d.]+)", line)
        if m and plan and plan[0] in TILES:
            dims = tuple(int(m.group(i)) for i in range(2, 6))
            rows.append((m.group(1), dims, plan[0], plan[1], float(m.group(6)) * 1e3))
    return rows


def features(dims, tile, splits, sms, tiles):
    m, n, k, batch = dims
    bm, bn, bk, resident = tiles[tile]
    workgroups = math.ceil(m / bm) * math.ceil(n / bn) * batch * splits
    waves = math.ceil(workgroups / (sms * resident))
    steps = math.ceil(math.ceil(k / splits) / bk)
    names = list(tiles)
    f = np.zeros(2 * len(names) + 2)
    i = names.index(tile)
    f[i] = waves * steps
    f[len(names) + i] = waves
    if splits > 1:
        f[-2] = m * n * batch * splits / 1e6
        f[-1] = 1
    return f


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sweep_log")
    parser.add_argument("--sms", type=int, default=132)
    parser.add_argument("--resident", default="",
                        help="tile=count,... overriding the H100 residencies")
    args = parser.parse_args()
    tiles = dict(TILES)
    for item in filter(None, args.resident.split(",")):
        name, count = item.split("=")
        bm, bn, bk, _ = tiles[name]
        tiles[name] = (bm, bn, bk, int(count))
    rows = read_sweep(args.sweep_log)
    if not rows:
        raise SystemExit(f"no pinned '-- cm<tile>/<splits>' blocks in {args.sweep_log}")
    swept = sorted({r[2] for r in rows}, key=list(tiles).index)
    tiles = {t: tiles[t] for t in swept}
    x = np.array([features(d, t, s, args.sms, tiles) for _, d, t, s, _ in rows])
    y = np.array([r[4] for r in rows])
    used = x.any(axis=0)
    coef = np.zeros(x.shape[1])
    fit, *_ = np.linalg.lstsq(x[:, used] / y[:, None], np.ones(len(y)), rcond=None)
    coef[used] = fit
    predicted = x @ coef
    error = np.abs(predicted - y) / y
    names = list(tiles)
    print(f"{len(rows)} points, {len(names)} tiles, {args.sms} SMs")
    print("tile         resident  step_us  wave_us")
    for i, name in enumerate(names):
        print(f"{name:12s} {tiles[name][3]:8d} {coef[i]:8.3f} {coef[len(names) + i]:8.3f}")
    print(f"split_us {coef[-1]:.3f}  partial_us_per_million {coef[-2]:.3f}")
    print(f"relative error: median {np.median(error):.3f}, largest {error.max():.3f}")
    for shape in dict.fromkeys(r[0] for r in rows):
        idx = [i for i, r in enumerate(rows) if r[0] == shape]
        pick = min(idx, key=lambda i: predicted[i])
        best = min(idx, key=lambda i: y[i])
        print(f"{shape:16s} picks {rows[pick][2]}/{rows[pick][3]} ({y[pick]:.1f} us), "
              f"fastest {rows[best][2]}/{rows[best][3]} ({y[best]:.1f} us)")


if __name__ == "__main__":
    main()
