#!/bin/bash
# Session 11, device call 5: GPT-2 with its LM head stored transposed
# (runtime/weight_layout.h), b1/b8 at FP32 (PyTorch fp32 and fp16 beside)
# and FP16, and the FP16 b8 profile per op type.
set -uo pipefail
source benchmarks/device_common.sh
device_unpack_bundle .bundle-c5
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
echo "== models FP32 $(date -u +%FT%TZ) SM $(clock)"
OUT=$OUT/tf MODELS="gpt2" BATCHES="1 8" timeout 200 bash $VK/run_on_device.sh > $OUT/tf.log 2>&1
tail -3 $OUT/tf/models.md
echo "== models FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$OUT/tf16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="gpt2" BATCHES="1 8" \
  timeout 100 bash $VK/run_on_device.sh > $OUT/tf16.log 2>&1
tail -3 $OUT/tf16/models.md
$VK/bin/vkserve infer /tmp/models/gpt2.onnx --dim N=8 --repeat 5 --warmup 2 --precision FP16 \
  --profile /tmp/profile_gpt2.json > /dev/null 2>&1
python3 benchmarks/models/profile_ops.py /tmp/profile_gpt2.json 8 | tee $OUT/profile_gpt2_b8_fp16.txt
rm -f $OUT/tf/profile_* $OUT/tf16/profile_* $OUT/tf*/summarize.err
echo "== SM clock at end: $(clock)"
stop_clock_sampling
