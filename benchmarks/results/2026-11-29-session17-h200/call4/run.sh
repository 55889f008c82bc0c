#!/bin/bash
# Session 17, device call 4 (call 3 again with a whole bundle; build: SiLU fusion; the 128x128 FP32 tile
# rated from call 2 and last in the tile table). Call 2's build had put the
# tile first, which shifted the cost model's tile order (Conv's im2col
# choices lost 128x64, 64x32 and 16x64): its FP32 Conv choices and FP32
# CNN figures are re-measured here.
#  1. resnet50, efficientnet_b0, mobilenet_v2 (b1, b32) at FP32 beside
#     PyTorch (fp32 and fp16 CUDA graphs), then at FP16.
#  2. gpt2 b8 FP32 (its logits GEMM now takes 128x128) and bert-base b8.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s17
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call4.tar.xz.part && mv $OUT/call4.tar.xz.part $OUT/call4.tar.xz; }
( sleep ${WATCHDOG_S:-380}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
M="bash $VK/run_on_device.sh"

echo "== CNNs FP32 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/cnn32 MODELS="efficientnet_b0 mobilenet_v2 resnet50" BATCHES="1 32" $T 200 $M > $R/cnn32.log 2>&1
tail -6 $R/cnn32/models.md
echo "== CNNs FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/cnn16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="efficientnet_b0 mobilenet_v2 resnet50" BATCHES="1 32" \
  $T 70 $M > $R/cnn16.log 2>&1
tail -6 $R/cnn16/models.md
echo "== transformers FP32 b8 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/tf32 PEERS=0 MODELS="gpt2 bert-base" BATCHES="8" $T 60 $M > $R/tf32.log 2>&1
tail -2 $R/tf32/models.md
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
for p in $R/*/profile_*.json; do
  python3 benchmarks/models/profile_ops.py "$p" 25 > "${p%.json}.txt" 2>&1 && rm -f "$p"
done
rm -rf $R/*/export.log $R/*/summarize.err
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
