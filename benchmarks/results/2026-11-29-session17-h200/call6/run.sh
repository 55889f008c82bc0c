#!/bin/bash
# Session 17, device call 6 (build: the GEMV keeps 64 bytes of an fp16 B in
# flight per thread, as fp32's 4 loads do: 8 loads along K on the [K, N]
# path, 4 on the [N, K] one). GEMV shapes at FP32 and FP16 (B a weight,
# stored in fp16), and cuBLAS on them.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s17
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --warmup 0.5 --repeat 20 --weights"
S='gemv_4096|gpt2_decode|head_b1$'
{
  echo "-- FP32, B a weight"; $T 40 $G "$S"
  echo "-- FP16, B a weight (stored in fp16)"; $T 40 $G "$S" --precision FP16
  echo "-- FP32, B a weight, again"; $T 30 $G 'gemv_4096'
  echo "-- cuBLAS"; $T 40 python3 benchmarks/ops/gemm_peers.py "$S"
} > $R/gemv.txt 2>&1
grep -v "^\s*$" $R/gemv.txt
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
