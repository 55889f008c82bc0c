#!/bin/bash
# Session 17, device call 1 (build a00dfe9: phase-span timing, staged outputs
# as views, per-signature Concat aliases; none measured on a GPU before).
#  1. bert-base and gpt2 (s128, b1/b8) at FP32 beside PyTorch (fp32 and fp16
#     CUDA graphs), then at FP16; the default is `--readback view`.
#  2. gpt2 b8 with `--readback buffers` (the server's copy) at FP32 and FP16:
#     issue 14's total/GPU bound, view against buffers.
#  3. The phase-span timing against `--time-each-dispatch` (the old
#     per-dispatch timestamps) for the transformers and the CNNs.
#  4. resnet50, efficientnet_b0, mobilenet_v2 (b1, b32) at FP32 beside
#     PyTorch.
# Everything is packed into one file, also by a watchdog should a step run
# long.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s17
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call1.tar.xz.part && mv $OUT/call1.tar.xz.part $OUT/call1.tar.xz; }
( sleep ${WATCHDOG_S:-500}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
ls /usr/local/cuda*/bin 2>/dev/null | grep -E "^(ncu|nsys|cuobjdump|nvdisasm)$" | tr '\n' ' '; echo " (profilers)"
M="bash $VK/run_on_device.sh"

echo "== transformers FP32 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/tf32 MODELS="bert-base gpt2" BATCHES="1 8" $T 130 $M > $R/tf32.log 2>&1
tail -4 $R/tf32/models.md
echo "== transformers FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/tf16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="bert-base gpt2" BATCHES="1 8" $T 60 $M > $R/tf16.log 2>&1
tail -4 $R/tf16/models.md
echo "== gpt2 b8 readback buffers $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/gpt32b PEERS=0 VKSERVE_FLAGS="--readback buffers" MODELS="gpt2" BATCHES="8" $T 25 $M > $R/gpt32b.log 2>&1
OUT=$R/gpt16b PEERS=0 VKSERVE_FLAGS="--precision FP16 --readback buffers" MODELS="gpt2" BATCHES="8" $T 25 $M > $R/gpt16b.log 2>&1
grep -h -A12 "== gpt2 batch 8" $R/tf32/vkserve.log $R/gpt32b/vkserve.log $R/tf16/vkserve.log $R/gpt16b/vkserve.log | grep -iE "total|gpu|wait|readback|==" | head -40
echo "== transformers FP32, time each dispatch $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/tf32e PEERS=0 VKSERVE_FLAGS="--time-each-dispatch" MODELS="bert-base gpt2" BATCHES="1 8" $T 50 $M > $R/tf32e.log 2>&1
tail -4 $R/tf32e/models.md
echo "== CNNs FP32 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/cnn32 MODELS="resnet50 efficientnet_b0 mobilenet_v2" BATCHES="1 32" $T 170 $M > $R/cnn32.log 2>&1
tail -6 $R/cnn32/models.md
echo "== CNNs FP32, time each dispatch $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/cnn32e PEERS=0 VKSERVE_FLAGS="--time-each-dispatch" MODELS="resnet50 efficientnet_b0 mobilenet_v2" BATCHES="1 32" \
  $T 70 $M > $R/cnn32e.log 2>&1
tail -6 $R/cnn32e/models.md

echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
for p in $R/*/profile_*.json; do
  python3 benchmarks/models/profile_ops.py "$p" 25 > "${p%.json}.txt" 2>&1 && rm -f "$p"
done
rm -rf $R/*/export.log $R/*/summarize.err
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
