#!/bin/bash
# Session 22, call 4: the im2col copy (4177d04, bin/vkserve) against the
# implicit im2col loader (581d95a, bin/vkserve_base; same GPU code as
# 8241ca0). First the 27 fp16 convolution op cases (tensor-core tiles; the
# onnxruntime references made on lavapipe) on the new build; then ResNet-50's
# convolutions at b32 FP16 and resnet50 b32 / b1 FP16, both builds, after a
# warm-up of the same work, alternating.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin call4 420
$T 40 python3 $VK/peers.py export resnet50 /tmp/r50.onnx --opset 17 > $R/export.log 2>&1 &
EXPORT=$!
VKSERVE_OP_CASES_DIR=$VK/cases $T 150 $VK/bin/runtime_op_cases_test > $R/op_cases.txt 2>&1
echo "op cases rc=$?: $(grep -c '^\[       OK' $R/op_cases.txt) OK, $(grep -c '^\[  FAILED  \]' $R/op_cases.txt) failed, $(grep -c '^\[  SKIPPED' $R/op_cases.txt) skipped"
grep -E "^\[  FAILED|Failure" -A3 $R/op_cases.txt | head -30
C="benchmarks/ops/resnet_convs.py --batch 32 --float16"
$T 40 python3 $C $VK/bin/vkserve --warmup 4 --repeat 3 > /dev/null 2>&1
for round in 1 2; do
  for bin in vkserve_base vkserve; do
    echo "== $bin round $round SM $(clock | cut -d, -f1)"
    $T 40 python3 $C $VK/bin/$bin --warmup 2 --repeat 5 --out /tmp/rc_$bin 2>&1
  done
done | tee $R/convs.txt
wait $EXPORT
for n in 32 1; do
  $T 60 $VK/bin/vkserve infer /tmp/r50.onnx --dim N=$n --precision FP16 --repeat 200 --warmup 20 > /dev/null 2>&1
  for bin in vkserve_base vkserve vkserve_base vkserve; do
    echo "-- resnet50 b$n FP16 $bin SM $(clock | cut -d, -f1): $($T 60 $VK/bin/$bin infer /tmp/r50.onnx --dim N=$n --precision FP16 --repeat 50 --warmup 5 2>&1 | grep '^timing' | sed 's/.*gpu-compute/gpu-compute/')"
  done
done | tee $R/models.txt
$VK/bin/vkserve inspect /tmp/r50.onnx --dim N=32 --precision FP16 2>&1 | grep -i "im2col copy" | head -5 > $R/inspect.txt
device_call_end
