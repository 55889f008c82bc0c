# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The cuBLAS peers of gemm_bench.py: PyTorch matmul on the same SHAPES in
# fp32 (TF32 off), TF32 and fp16, each warmed up for half a second and then timed
# with CUDA events over a CUDA graph of 20 launches. Run it on the same GPU
# right after gemm_bench.py so both see one machine state.
#
# Usage: python3 benchmarks/ops/gemm_peers.py [NAME_REGEX]
import re
import sys
import time

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from gemm_bench import SHAPES  # noqa: E402


def time_ms(fn, runs=20):
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        end = time.time() + 0.5
        while time.time() < end:
            fn()
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            for _ in range(runs):
                fn()
        graph.replay()
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record(stream)
        graph.replay()
        stop.record(stream)
        torch.cuda.synchronize()
    return start.elapsed_time(stop) / runs


def main():
    pattern = re.compile(sys.argv[1] if len(sys.argv) > 1 else "")
    print(f"{'shape':18s} {'fp32 TF/s':>10s} {'tf32 TF/s':>10s} {'fp16 TF/s':>10s}")
    for name, _op, batch, m, n, k, trans_b in SHAPES:
        if not pattern.search(name):
            continue
        row = []
        for mode in ("fp32", "tf32", "fp16"):
            torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
            dtype = torch.float16 if mode == "fp16" else torch.float32
            a = torch.randn(batch, m, k, device="cuda", dtype=dtype)
            b = torch.randn(batch, n, k, device="cuda", dtype=dtype) if trans_b else \
                torch.randn(batch, k, n, device="cuda", dtype=dtype)
            fn = (lambda: torch.matmul(a, b.transpose(1, 2))) if trans_b else \
                (lambda: torch.matmul(a, b))
            ms = time_ms(fn)
            row.append(2.0 * batch * m * n * k / ms / 1e9)
        print(f"{name:18s} {row[0]:10.1f} {row[1]:10.1f} {row[2]:10.1f}")


if __name__ == "__main__":
    main()
