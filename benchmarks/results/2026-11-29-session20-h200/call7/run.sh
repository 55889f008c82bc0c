#!/bin/bash
# Session 20, device call 7: common subexpression elimination
# (runtime/common_subexpressions.h; bin/vkserve) against ecc3bf9
# (bin/vkserve_base): bert-base and gpt2 at b1 and b8, FP16 and FP32, GPU
# compute of 30 runs after 2 s of warm-up, two rounds; PyTorch CUDA graphs
# (peers.py, fp32 and fp16) in the same call.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s20
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call7.tar.xz.part && mv $OUT/call7.tar.xz.part $OUT/call7.tar.xz; }
( sleep ${WATCHDOG_S:-420}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
for m in bert-base gpt2; do python3 $VK/peers.py export $m /tmp/$m.onnx --opset 17 >> $R/export.log 2>&1; done
for m in bert-base gpt2; do
  for n in 1 8; do
    for prec in FP16 FP32; do
      for bin in vkserve_base vkserve vkserve_base vkserve; do
        echo "-- $m b$n $prec $bin SM $(clock | cut -d, -f1): $($T 60 $VK/bin/$bin infer /tmp/$m.onnx --dim N=$n --precision $prec --repeat 30 --warmup 2 2>&1 | grep '^timing' | sed 's/.*gpu-compute/gpu-compute/')"
      done
    done
  done
done | tee $R/models.txt
for m in bert-base gpt2; do
  $VK/bin/vkserve inspect /tmp/$m.onnx > $R/${m}_inspect.txt 2>&1
  $VK/bin/vkserve_base inspect /tmp/$m.onnx > $R/${m}_inspect_base.txt 2>&1
  echo "$m dispatching nodes: base $(grep -c '  gpu$' $R/${m}_inspect_base.txt), new $(grep -c '  gpu$' $R/${m}_inspect.txt)"
done
echo "== PyTorch $(date -u +%FT%TZ) SM $(clock)"
for m in bert-base gpt2; do $T 150 python3 $VK/peers.py time $m --batch 1 8 --dtype fp32 fp16; done > $R/peers.jsonl 2> $R/peers.err
cat $R/peers.jsonl
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
