# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Fits the tensor-core cost model's wave figures -- per tile RESIDENT,
# STEP_US and WAVE_US, and the split-K price, once per cooperative-matrix
# extension, all in shaders/gemm/gemm_coopmat_tiles.def -- to a sweep of
# pinned plans, and prints the table's rows with the fitted figures, ready to
# paste. The model, as WaveCost (runtime/kernels/gemm/gemm_plan.cc) computes it:
#
#   waves = ceil(workgroups / (SMs * resident))
#   time  = waves * (K steps * step_us + wave_us)
#           + [splits > 1] * (split_us + partial_us_per_million * M * N * batch * splits / 1e6)
#
# Linear in its figures once the residencies are fixed, so a least-squares
# fit weighted by 1/time (relative error); --search-resident also tries 1-4
# workgroups per SM for each tile and keeps what fits best (a register count
# from the sweep's pipeline statistics says what can be resident).
#
# Reads coopmat_sweep.py's JSON lines (each row says its extension and
# accumulation; one file per setup, several files at once) or gemm_bench.py
# logs with each block headed "-- cm<tile>/<splits>" (`gemm_bench.py --plan
# cm<tile>/<splits>` output, through the extension --extension names). Per
# extension and accumulation it prints the figures, the error of the fit and
# of the table's current figures, and per shape the plan the fitted model
# picks (among power-of-two splits, as the engine does; without WaveCost's
# split margin) against the fastest measured (any split swept) and,
# from a sweep, against what the engine chose; then the sweep's epilogue
# nodes against the same plan without one. The .def rows come from the fp32-
# accumulation fits (the figures' own setting); an extension not swept keeps
# its columns.
#
# Usage: python3 benchmarks/ops/fit_coopmat_cost.py SWEEP... [--sms 132]
#        [--resident 128x128w4=2,...] [--search-resident] [--extension nv|khr]
#        [--allow-emulated]
import argparse
import json
import math
import re

import numpy as np

import coopmat_table


def read_bench_log(path, extension):
    """gemm_bench.py output: [row dict], as coopmat_sweep.py writes them."""
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
        if m and plan:
            mm, n, k, batch = (int(m.group(i)) for i in range(2, 6))
            rows.append({"extension": extension, "accumulation": "FP32", "shape": m.group(1),
                         "m": mm, "n": n, "k": k, "batch": batch,
                         "plan": f"cm{plan[0]}/{plan[1]}", "epilogue": "", "tile": plan[0],
                         "splits": plan[1], "emulated": False, "us": float(m.group(6)) * 1e3})
    return rows, {}


def read_sweep(path, extension):
    """(rows, meta) of a coopmat_sweep.py file or a gemm_bench.py log."""
    with open(path) as f:
        first = f.readline().strip()
    if not first.startswith("{"):
        return read_bench_log(path, extension)
    rows, meta = [], {}
    for line in open(path):
        record = json.loads(line)
        if "meta" in record:
            meta = record["meta"]
        else:
            rows.append(record)
    return rows, meta


def features(row, tiles, names, sms):
    """The row's coefficients of [step_us per tile, wave_us per tile, partial, split]."""
    t = tiles[row["tile"]]
    splits = row["splits"]
    workgroups = math.ceil(row["m"] / t["bm"]) * math.ceil(row["n"] / t["bn"]) * \
        row["batch"] * splits
    waves = math.ceil(workgroups / (sms * t["resident"]))
    steps = math.ceil(math.ceil(row["k"] / splits) / t["bk"])
    f = np.zeros(2 * len(names) + 2)
    i = names.index(row["tile"])
    f[i] = waves * steps
    f[len(names) + i] = waves
    if splits > 1:
        f[-2] = row["m"] * row["n"] * row["batch"] * splits / 1e6
        f[-1] = 1
    return f


def fit(rows, tiles, names, sms):
    """(coefficients, predictions, relative errors) of the weighted least squares."""
    x = np.array([features(r, tiles, names, sms) for r in rows])
    y = np.array([r["us"] for r in rows])
    used = x.any(axis=0)
    coef = np.zeros(x.shape[1])
    solved, *_ = np.linalg.lstsq(x[:, used] / y[:, None], np.ones(len(y)), rcond=None)
    coef[used] = solved
    predicted = x @ coef
    return coef, predicted, np.abs(predicted - y) / y


def rms(error):
    return float(np.sqrt(np.mean(error ** 2)))


def fit_group(key, rows, table, splits_table, args, sms):
    """Prints one (extension, accumulation) group's fit; returns its figures."""
    extension, accumulation = key
    figures_ext = extension if extension in coopmat_table.EXTENSIONS else "nv"
    swept = [n for n in table if any(r["tile"] == n for r in rows)]
    tiles = {n: dict(table[n], resident=table[n][f"{figures_ext}_resident"]) for n in swept}
    for item in filter(None, args.resident.split(",")):
        name, count = item.split("=")
        if name in tiles:
            tiles[name]["resident"] = int(count)
    if args.search_resident:
        for _ in range(2):  # coordinate descent: each tile's residency given the others'
            for name in swept:
                # The current count first: it stays unless another fits better.
                counts = [tiles[name]["resident"]] + [c for c in (1, 2, 3, 4)
                                                      if c != tiles[name]["resident"]]
                best = None
                for count in counts:
                    tiles[name]["resident"] = count
                    error = rms(fit(rows, tiles, swept, sms)[2])
                    if best is None or error < best[0] * 0.999:
                        best = (error, count)
                tiles[name]["resident"] = best[1]
    coef, predicted, error = fit(rows, tiles, swept, sms)
    # The table's current figures for this extension, on the same points.
    current = {n: dict(tiles[n], resident=table[n][f"{figures_ext}_resident"]) for n in swept}
    x_now = np.array([features(r, current, swept, sms) for r in rows])
    now = np.concatenate([[table[n][f"{figures_ext}_step_us"] for n in swept],
                          [table[n][f"{figures_ext}_wave_us"] for n in swept],
                          [splits_table[figures_ext][1], splits_table[figures_ext][0]]])
    y = np.array([r["us"] for r in rows])
    error_now = np.abs(x_now @ now - y) / y
    print(f"\n== {extension}, {accumulation} accumulation: {len(rows)} points, "
          f"{len(swept)} tiles, {sms} SMs")
    print(f"{'tile':12s} {'resident':>8s} {'step_us':>8s} {'wave_us':>8s}   table: "
          f"{'resident':>8s} {'step_us':>8s} {'wave_us':>8s}")
    n = len(swept)
    for i, name in enumerate(swept):
        print(f"{name:12s} {tiles[name]['resident']:8d} {coef[i]:8.3f} {coef[n + i]:8.3f}   "
              f"       {table[name][f'{figures_ext}_resident']:8d} "
              f"{table[name][f'{figures_ext}_step_us']:8.3f} "
              f"{table[name][f'{figures_ext}_wave_us']:8.3f}")
    print(f"split_us {coef[-1]:.3f}  partial_us_per_million {coef[-2]:.3f}   table: "
          f"{splits_table[figures_ext][0]:.3f} {splits_table[figures_ext][1]:.3f}")
    print(f"relative error: median {np.median(error):.3f}, largest {error.max():.3f}; the "
          f"table's {figures_ext} figures: median {np.median(error_now):.3f}, "
          f"largest {error_now.max():.3f}")
    figures = {name: (tiles[name]["resident"], coef[i], coef[n + i])
               for i, name in enumerate(swept)}
    return figures, (coef[-1], coef[-2]), predicted


def kernel_name(row):
    """A chosen plan's tile, or its scalar kernel's name."""
    return row["tile"] or row["kernel"].split(",")[0].replace("ops/gemm_", "")


def report_shapes(rows, predicted, chosen, epilogues):
    """Per shape: the fitted model's pick, the fastest plan and the engine's choice."""
    print(f"{'shape':16s} {'model picks':24s} {'fastest':24s} {'engine chose':30s}")
    for shape in dict.fromkeys(r["shape"] for r in rows):
        idx = [i for i, r in enumerate(rows) if r["shape"] == shape]
        # The engine tries powers of two only; the fastest may be any split swept.
        pick = min((i for i in idx if rows[i]["splits"] & (rows[i]["splits"] - 1) == 0),
                   key=lambda i: predicted[i])
        best = min(idx, key=lambda i: rows[i]["us"])
        fastest = rows[best]["us"]
        flop = 2.0 * rows[best]["m"] * rows[best]["n"] * rows[best]["k"] * rows[best]["batch"]

        def plan(r):
            return f"{r['tile']}/{r['splits']} {r['us']:.1f}"
        engine = chosen.get(shape)
        engine_text = "-" if engine is None else \
            f"{kernel_name(engine)}/{engine['splits']} {engine['us']:.1f} " \
            f"({100 * (engine['us'] / fastest - 1):+.0f}%)"
        print(f"{shape:16s} {plan(rows[pick]):24s} {plan(rows[best]):18s}"
              f"{flop / fastest / 1e6:5.0f}T {engine_text}")
    if epilogues:
        plain = {(r["shape"], r["plan"]): r["us"] for r in rows}
        plain.update({(s, ""): r["us"] for s, r in chosen.items()})
        print(f"{'epilogue':30s} {'plan':16s} {'plain us':>9s} {'with':>9s}")
        for r in epilogues:
            base = plain.get((r["shape"], r["plan"]))
            label = r["plan"] or f"({kernel_name(r)}/{r['splits']})"
            extra = f"{100 * (r['us'] / base - 1):+6.1f}%" if base else ""
            print(f"{r['shape'] + ' ' + r['epilogue']:30s} {label:16s} "
                  f"{base or 0:9.1f} {r['us']:9.1f} {extra}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sweeps", nargs="+")
    parser.add_argument("--sms", type=int, default=0, help="default: the sweep's, else 132")
    parser.add_argument("--resident", default="", help="tile=count,... overriding the table's")
    parser.add_argument("--search-resident", action="store_true")
    parser.add_argument("--extension", default="nv", choices=coopmat_table.EXTENSIONS,
                        help="the extension of gemm_bench.py logs")
    parser.add_argument("--allow-emulated", action="store_true",
                        help="fit emulated kernels too (checks the scripts on lavapipe)")
    args = parser.parse_args()
    table, splits_table = coopmat_table.read_table()
    groups, sms = {}, args.sms
    for path in args.sweeps:
        rows, meta = read_sweep(path, args.extension)
        sms = sms or meta.get("sms", 0)
        for r in rows:
            groups.setdefault((r["extension"], r["accumulation"]), []).append(r)
    sms = sms or 132
    fitted, fitted_splits = {}, {}
    for key, rows in groups.items():
        usable = [r for r in rows if r.get("tile") in table and not r.get("mismatch") and
                  (args.allow_emulated or not r.get("emulated"))]
        pinned = [r for r in usable if r["plan"] and not r["epilogue"]]
        if len(pinned) < 4:
            print(f"\n== {key[0]}, {key[1]}: {len(pinned)} usable pinned points; no fit")
            continue
        figures, split, predicted = fit_group(key, pinned, table, splits_table, args, sms)
        chosen = {r["shape"]: r for r in rows if not r["plan"] and not r["epilogue"]}
        report_shapes(pinned, predicted, chosen, [r for r in rows if r["epilogue"]])
        if key[0] in coopmat_table.EXTENSIONS and key[1] == "FP32":
            fitted[key[0]], fitted_splits[key[0]] = figures, split
    if not fitted:
        raise SystemExit("\nno fp32-accumulation sweep through nv or khr: no table rows")
    print(f"\n// shaders/gemm/gemm_coopmat_tiles.def rows (refitted: {', '.join(fitted)}; "
          "a tile not swept keeps its figures)")
    for name, tile in table.items():
        row = dict(tile)
        for extension, figures in fitted.items():
            if name in figures:
                resident, step_us, wave_us = figures[name]
                row[f"{extension}_resident"] = resident
                row[f"{extension}_step_us"] = step_us
                row[f"{extension}_wave_us"] = wave_us
        print(coopmat_table.tile_row(row))
    for extension in coopmat_table.EXTENSIONS:
        split_us, partial_us = fitted_splits.get(extension, splits_table[extension])
        print(coopmat_table.split_row(extension, split_us, partial_us))


if __name__ == "__main__":
    main()
