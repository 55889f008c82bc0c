#!/bin/bash
# Session 20, device call 2: where the tensor-core kernels' time goes.
# Build 289f78d + ablation.patch (not committed): each ablation is a variant
# of the same kernel with one part removed (results are garbage; only the
# time counts), chosen by VKSERVE_ABLATE (GEMM, fp16 tensors) or
# VKSERVE_FA_ABLATE (coopmat flash attention):
#   GEMM  1: no global loads inside the K loop (stale registers stored)
#         2: no staging at all: the matrix work on stage 0, no barriers
#         3: matrix products only, on fragments loaded once (the ceiling)
#   attn  1: no softmax (no mask, max or exp)   2: no K/V global loads in the loop
#         3: no P V                              4: no S = Q K'
#         5: 2 and no shared stores or barriers after the first tile
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s20
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call2.tar.xz.part && mv $OUT/call2.tar.xz.part $OUT/call2.tar.xz; }
( sleep ${WATCHDOG_S:-500}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --repeat 20 --precision FP16 --float16"
S='square_4096$|gpt2_b8_qkv|bert_b8_ffn1'
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
$T 60 $G 'square_4096$' --warmup 3 > $R/warmup.txt 2>&1; tail -1 $R/warmup.txt
for t in cm128x128w4 cm128x256 cm64x64; do
  for a in 0 1 2 3; do
    echo "-- $t ablate $a SM $(clock)"
    if [ $a = 0 ]; then $T 40 $G "$S" --plan $t --warmup 0.2 --statistics 2>&1 | tail -n +2
    else VKSERVE_ABLATE=$a $T 40 $G "$S" --plan $t --warmup 0.2 --statistics 2>&1 | tail -n +2; fi
  done
done > $R/gemm.txt 2>&1
grep -v "pipeline" $R/gemm.txt
A="python3 benchmarks/ops/attention_bench.py $VK/bin/vkserve --precision FP16 --kinds coopmat --repeat 20 --warmup 0.3"
for a in 0 1 2 3 4 5; do
  echo "-- attention ablate $a SM $(clock)"
  if [ $a = 0 ]; then $T 60 $A 's128_b8|s512_b8|s2048_b1$' 2>&1
  else VKSERVE_FA_ABLATE=$a $T 60 $A 's128_b8|s512_b8|s2048_b1$' 2>&1; fi
done > $R/attention.txt 2>&1
grep -v "^\s*$" $R/attention.txt
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
