#!/bin/bash
# Session 18, device call 2 (build: 8fa6e52, glslc -O for the cooperative-matrix
# shaders only, as committed after call 1's A/B).
#  1. GEMM and GEMV kernels FP32 and FP16 (B a weight) beside cuBLAS.
#  2. resnet50, efficientnet_b0, mobilenet_v2 (b1, b32) at FP32 beside
#     PyTorch (fp32 and fp16 CUDA graphs), then at FP16.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s18
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call2.tar.xz.part && mv $OUT/call2.tar.xz.part $OUT/call2.tar.xz; }
( sleep ${WATCHDOG_S:-560}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
S='square_4096|bert_b8_qkv|gpt2_b8_qkv|gpt2_b8_lm_head|gemv_4096|gpt2_decode_qkv'
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --warmup 0.5 --repeat 20 --weights"
echo "== GEMM $(date -u +%FT%TZ) SM $(clock)"
{ echo "-- FP32"; $T 50 $G "$S"; echo "-- FP16"; $T 50 $G "$S" --precision FP16; } > $R/gemm.txt 2>&1
grep -v "^\s*$" $R/gemm.txt | head -30
echo "== cuBLAS $(date -u +%FT%TZ) SM $(clock)"
$T 50 python3 benchmarks/ops/gemm_peers.py "$S" > $R/cublas.txt 2>&1
grep -v "^\s*$" $R/cublas.txt | head -30
M="bash $VK/run_on_device.sh"
echo "== CNNs FP32 + peers $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/cnn32 MODELS="efficientnet_b0 mobilenet_v2 resnet50" BATCHES="1 32" $T 230 $M > $R/cnn32.log 2>&1
tail -6 $R/cnn32/models.md
echo "== CNNs FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/cnn16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="efficientnet_b0 mobilenet_v2 resnet50" BATCHES="1 32" \
  $T 130 $M > $R/cnn16.log 2>&1
tail -6 $R/cnn16/models.md
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
for p in $R/*/profile_*.json; do
  python3 benchmarks/models/profile_ops.py "$p" 25 > "${p%.json}.txt" 2>&1 && rm -f "$p"
done
rm -rf $R/*/export.log $R/*/summarize.err
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
