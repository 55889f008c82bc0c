#!/bin/bash
# Session 18, device call 5 (build: 3d9f5ed, as call 4): attention at FP16.
#  1. attention_bench.py, 12 heads of 64, every shape: the chosen kernel,
#     the fused scalar one and the tensor-core one, at FP16 and FP32 (chosen),
#     beside PyTorch's scaled_dot_product_attention (issue 14's target:
#     FP16 >= 40 % of the dense fp16 rate).
#  2. inspect of gpt2 and bert-base at FP16: which attention kernel runs.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s18
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call5.tar.xz.part && mv $OUT/call5.tar.xz.part $OUT/call5.tar.xz; }
( sleep ${WATCHDOG_S:-300}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
A="python3 benchmarks/ops/attention_bench.py"
{
  echo "-- FP16"; $T 90 $A $VK/bin/vkserve --warmup 0.5 --precision FP16 --kinds chosen,fused,coopmat
  echo "-- FP32"; $T 60 $A $VK/bin/vkserve --warmup 0.5 --kinds chosen
  echo "-- PyTorch SDPA"; $T 60 $A --peers
} > $R/attention.txt 2>&1
grep -v "^\s*$" $R/attention.txt | head -60
echo "== inspect $(date -u +%FT%TZ)"
for m in gpt2 bert-base; do
  $T 90 python3 $VK/peers.py export $m /tmp/$m.onnx --opset 17 > /dev/null 2>&1
  $T 30 $VK/bin/vkserve inspect /tmp/$m.onnx --precision FP16 > $R/${m}_inspect_fp16.txt 2>&1
  grep -m3 "kernel: .*attention" $R/${m}_inspect_fp16.txt
done
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
