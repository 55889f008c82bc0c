#!/bin/bash
# Session 22, call 5: the im2col copy only where a group has 128 or more
# outputs (bin/vkserve) against call 4's copy of every tensor-core window
# (bin/vkserve_all, 4177d04) and the implicit loader (bin/vkserve_base,
# 581d95a): resnet50 FP16 at b32 and b1, after a warm-up, alternating; and
# the new op cases of the copy (130 outputs; two groups of 128) on tensor
# cores.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin call5 200
$T 40 python3 $VK/peers.py export resnet50 /tmp/r50.onnx --opset 17 > $R/export.log 2>&1 &
EXPORT=$!
VKSERVE_OP_CASES_DIR=$VK/cases $T 60 $VK/bin/runtime_op_cases_test > $R/op_cases.txt 2>&1
echo "op cases rc=$?: $(grep -c '^\[       OK' $R/op_cases.txt) OK, $(grep -c '^\[  FAILED  \]' $R/op_cases.txt) failed"
wait $EXPORT
for n in 32 1; do
  $T 40 $VK/bin/vkserve infer /tmp/r50.onnx --dim N=$n --precision FP16 --repeat 200 --warmup 20 > /dev/null 2>&1
  for bin in vkserve_base vkserve_all vkserve vkserve_base vkserve_all vkserve; do
    echo "-- resnet50 b$n FP16 $bin SM $(clock | cut -d, -f1): $($T 30 $VK/bin/$bin infer /tmp/r50.onnx --dim N=$n --precision FP16 --repeat 50 --warmup 5 2>&1 | grep '^timing' | sed 's/.*gpu-compute/gpu-compute/')"
  done
done | tee $R/models.txt
device_call_end
