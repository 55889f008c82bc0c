#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
"""PyTorch device-to-device copy bandwidth, the peer of vkserve_gpu_bench's copies.

On the GPU machine, for each size: dst.copy_(src) on contiguous uint8 CUDA
tensors (a cudaMemcpyAsync device-to-device), src random bytes. One trial is R
back-to-back copies of the same src -> dst on one stream between two CUDA
events, R = clamp(4 GiB / size, 4, 64) exactly as vkserve_gpu_bench records R
copies per submission; the per-copy time is the trial's time / R, and the
figure is the median over the trials. "GB/s" = bytes copied (one direction,
N bytes for an N-byte copy) / median per-copy time, 1 GB = 1e9 bytes: the
vkserve_gpu_bench convention (double it for bytes read plus written).

For reference, also an fp32 SGEMM through cuBLAS with TF32 off (8192^3), the
nearest thing PyTorch has to a pure fp32 FMA-throughput figure (elementwise
FMA such as torch.addcmul is memory-bound, so it says nothing about FMA rate).

Prints one JSON object per line. Exits 3 (after printing a JSON line saying
so) when torch or CUDA is not available.
"""
import argparse
import json
import statistics
import sys

MIB = 1 << 20


def emit(**kw):
    print(json.dumps(kw), flush=True)


def copies_per_trial(size):
    return max(4, min(64, (4 << 30) // size))


def time_copies(torch, size, trials, warmup):
    src = torch.randint(0, 256, (size,), dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    dst.fill_(0xEF)  # poisoned: the check below proves every byte was written
    reps = copies_per_trial(size)
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for _ in range(warmup):
        dst.copy_(src)
    torch.cuda.synchronize()
    per_copy_ms = []
    for _ in range(trials):
        start.record()
        for _ in range(reps):
            dst.copy_(src)
        end.record()
        end.synchronize()
        per_copy_ms.append(start.elapsed_time(end) / reps)
    ok = bool(torch.equal(dst, src))
    med = statistics.median(per_copy_ms)
    emit(bench="torch_copy", bytes=size, size_mib=size / MIB, copies_per_trial=reps,
         trials=trials, median_us=med * 1e3, min_us=min(per_copy_ms) * 1e3,
         max_us=max(per_copy_ms) * 1e3, gb_per_s=size / (med * 1e-3) / 1e9, verified=ok)
    del src, dst
    torch.cuda.empty_cache()


def time_sgemm(torch, n, trials):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    a = torch.randn(n, n, device="cuda", dtype=torch.float32)
    b = torch.randn(n, n, device="cuda", dtype=torch.float32)
    c = torch.empty(n, n, device="cuda", dtype=torch.float32)
    for _ in range(3):
        torch.mm(a, b, out=c)
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    ms = []
    for _ in range(trials):
        start.record()
        torch.mm(a, b, out=c)
        end.record()
        end.synchronize()
        ms.append(start.elapsed_time(end))
    med = statistics.median(ms)
    emit(bench="torch_sgemm_fp32_no_tf32", n=n, trials=trials, median_ms=med,
         tflop_per_s=2.0 * n ** 3 / (med * 1e-3) / 1e12)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes-mib", default="1,16,256,1024")
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--sgemm-n", type=int, default=8192, help="0 skips the SGEMM reference")
    args = ap.parse_args()
    try:
        import torch
    except ImportError as e:
        emit(bench="torch_copy", skipped=f"torch not importable: {e}")
        return 3
    if not torch.cuda.is_available():
        emit(bench="torch_copy", skipped="torch.cuda.is_available() is False")
        return 3
    emit(bench="torch_env", torch=torch.__version__, cuda=torch.version.cuda,
         device=torch.cuda.get_device_name(0),
         sm_count=torch.cuda.get_device_properties(0).multi_processor_count)
    for mib in args.sizes_mib.split(","):
        time_copies(torch, int(float(mib) * MIB), args.trials, args.warmup)
    if args.sgemm_n > 0:
        time_sgemm(torch, args.sgemm_n, max(5, args.trials // 10))
    return 0


if __name__ == "__main__":
    sys.exit(main())
