#!/bin/bash
# Session 21, device call 3 (build: 9043b35 + inspect showing each GEMM's
# kernel + profiles that time each command alone, .bundle-c3). Call 2's
# sweep again, now that a profile serializes independent nodes; the cost
# model's kernels listed; resnet50 b32 FP16 profiled the same way.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin c3 300
C="python3 benchmarks/ops/resnet_convs.py $VK/bin/vkserve --batch 32 --float16"
$T 60 $C --warmup 3 --repeat 3 --plan auto > /dev/null 2>&1
echo "SM $(clock)"
$T 200 $C --warmup 1 --repeat 5 --plan auto --plan cm64x64 --plan cm128x128 \
  --plan cm128x256 --plan cm256x128 --plan 128x64 --plan 64x64 2>&1 | tee $R/sweep.txt
$VK/bin/vkserve inspect /tmp/vkserve_resnet_convs/auto.onnx --dim N=32 2>&1 | grep -B1 "kernel:" > $R/kernels.txt
$VK/bin/vkserve infer /tmp/vkserve_resnet_convs/auto.onnx --repeat 1 --pipeline-statistics 2>&1 | grep "pipeline ops/gemm" | sed 's/.*pipeline \(ops[^ ]*\).*Register Count \([0-9]*\).*/\1 \2/' | sort -u | tee $R/registers.txt
echo "SM $(clock)"
$T 60 python3 $VK/peers.py export resnet50 /tmp/r50.onnx --opset 17 > $R/export.log 2>&1
$T 60 $VK/bin/vkserve infer /tmp/r50.onnx --dim N=32 --precision FP16 --repeat 30 --warmup 2 2>&1 | grep timing
$T 60 $VK/bin/vkserve infer /tmp/r50.onnx --dim N=32 --precision FP16 --repeat 5 --profile $R/r50.json > /dev/null 2>&1
python3 $VK/profile_ops.py $R/r50.json 12
$VK/bin/vkserve inspect /tmp/r50.onnx --dim N=32 --precision FP16 > $R/r50_inspect.txt 2>&1
xz -1 $R/*.json
device_call_end
