#!/bin/bash
# Session 17, device call 2 (build: + a 128x128 FP32 GEMM tile, 8x8 outputs
# per thread in 8-deep steps, rated so that the cost model never picks it).
#  1. FP32 GEMMs and Convs: the chosen plan against 128x128 pinned (B a
#     weight, as in models), and cuBLAS on the same shapes.
#  2. resnet50, efficientnet_b0, mobilenet_v2 (b1, b32) at FP16; mobilenet_v2
#     b32 at FP32 beside PyTorch (call 1's CNN step ran out of time there);
#     efficientnet_b0 at FP32 with x * Sigmoid(x) fused into its convs
#     (runtime/silu_fusion.h; call 1 ran it unfused).
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s17
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call2.tar.xz.part && mv $OUT/call2.tar.xz.part $OUT/call2.tar.xz; }
( sleep ${WATCHDOG_S:-420}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
M="bash $VK/run_on_device.sh"

echo "== GEMM FP32 $(date -u +%FT%TZ) SM $(clock)"
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --warmup 0.5 --repeat 20 --weights"
S='square_4096|square_2048$|bert_b1_ffn1|bert_b8|gpt2_b8'
{
  echo "-- FP32, chosen"; $T 60 $G "$S"
  echo "-- FP32, 128x128 pinned"; $T 60 $G "$S" --plan 128x128
  echo "-- FP32, 128x128/2 pinned"; $T 30 $G 'bert_b1_ffn1|bert_b8_qkv|bert_b8_ffn2' --plan 128x128/2
} > $R/gemm.txt 2>&1
grep -v "^\s*$" $R/gemm.txt | head -60
echo "== Conv FP32 $(date -u +%FT%TZ) SM $(clock)"
C="python3 benchmarks/ops/conv_bench.py $VK/bin/vkserve --warmup 0.5 --repeat 20"
{
  echo "-- FP32, chosen"; $T 60 $C
  echo "-- FP32, 128x128 pinned"; $T 60 $C "" --plan 128x128
} > $R/conv.txt 2>&1
grep -v "^\s*$" $R/conv.txt | head -40
echo "== cuBLAS $(date -u +%FT%TZ) SM $(clock)"
$T 40 python3 benchmarks/ops/gemm_peers.py "$S" > $R/cublas.txt 2>&1
grep -v "^\s*$" $R/cublas.txt | head -30

echo "== CNNs FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/cnn16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="resnet50 efficientnet_b0 mobilenet_v2" BATCHES="1 32" \
  $T 150 $M > $R/cnn16.log 2>&1
tail -6 $R/cnn16/models.md
echo "== efficientnet_b0 FP32 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/eff32 PEERS=0 MODELS="efficientnet_b0" BATCHES="1 32" $T 40 $M > $R/eff32.log 2>&1
tail -2 $R/eff32/models.md
echo "== mobilenet_v2 b32 FP32 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/mv2 MODELS="mobilenet_v2" BATCHES="32" DTYPES="fp32 fp16" $T 60 $M > $R/mv2.log 2>&1
tail -1 $R/mv2/models.md

echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
for p in $R/*/profile_*.json; do
  python3 benchmarks/models/profile_ops.py "$p" 25 > "${p%.json}.txt" 2>&1 && rm -f "$p"
done
rm -rf $R/*/export.log $R/*/summarize.err
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
