#!/bin/bash
# Session 18, device call 4 (build: 3d9f5ed: GPT-2 as the TorchScript exporter writes it
# runs with its Q/K/V read packed, no Split and no head Transposes).
#  1. bert-base and gpt2 (b1, b8) at FP32 beside PyTorch (fp32 and fp16 CUDA
#     graphs), then at FP16.
#  2. inspect of gpt2 (what runs), and its FP16 error against FP32 (--compare).
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s18
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call4.tar.xz.part && mv $OUT/call4.tar.xz.part $OUT/call4.tar.xz; }
( sleep ${WATCHDOG_S:-540}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
M="bash $VK/run_on_device.sh"
echo "== transformers FP32 + peers $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/tf32 MODELS="bert-base gpt2" BATCHES="1 8" $T 260 $M > $R/tf32.log 2>&1
tail -4 $R/tf32/models.md
echo "== transformers FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/tf16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="bert-base gpt2" BATCHES="1 8" $T 100 $M > $R/tf16.log 2>&1
tail -4 $R/tf16/models.md
$T 30 $VK/bin/vkserve inspect /tmp/models/gpt2.onnx > $R/gpt2_inspect.txt 2>&1
$T 40 $VK/bin/vkserve infer /tmp/models/gpt2.onnx --dim N=1 --precision FP16 --compare 2>&1 | tail -4 | tee $R/gpt2_compare.txt
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
for p in $R/*/profile_*.json; do
  python3 benchmarks/models/profile_ops.py "$p" 25 > "${p%.json}.txt" 2>&1 && rm -f "$p"
done
rm -rf $R/*/export.log $R/*/summarize.err
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
