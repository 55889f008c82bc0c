#!/bin/bash
# Session 11, device call 4: where BERT-base and GPT-2 b8 spend their GPU
# time at FP16 (build of call 3): one profiled run each after a warm-up,
# summed per op type (benchmarks/models/profile_ops.py).
set -uo pipefail
source benchmarks/device_common.sh
device_unpack_bundle .bundle-c3
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
mkdir -p /tmp/models
for m in bert-base gpt2; do
  [ -f /tmp/models/$m.onnx ] || python3 $VK/peers.py export $m /tmp/models/$m.onnx --opset 17 > /dev/null 2>&1
  echo "== $m b8 FP16 $(date -u +%FT%TZ) SM $(clock)"
  $VK/bin/vkserve infer /tmp/models/$m.onnx --dim N=8 --repeat 5 --warmup 3 --precision FP16 \
    --profile /tmp/profile_$m.json > /dev/null 2>&1
  python3 benchmarks/models/profile_ops.py /tmp/profile_$m.json | tee $OUT/profile_${m}_b8_fp16.txt
done
echo "== SM clock at end: $(clock)"
stop_clock_sampling
