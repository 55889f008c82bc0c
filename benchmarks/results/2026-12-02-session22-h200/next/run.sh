#!/bin/bash
# Prepared in sessions 22-23, NOT RUN. The im2col copy's kernel with FastDiv
# and fp16 reads one element at a time (4923f64, e0cc8c5) has not run on the
# H200; call 4 of session 22 timed the division form. Bundle:
# next/make_bundles.sh writes .bundle-next/bundle.tar.xz, every binary HEAD
# with one change:
#   vkserve         HEAD (the copy at >= 128 outputs per group)
#   vkserve_x8      + im2col_x8.patch: eight fp16 elements per invocation,
#                   one 16-byte store, the index decomposed once and stepped
#   vkserve_all     + copy_every_window.patch: the copy for every tensor-core
#                   window (does FastDiv make it pay at 64 outputs?)
#   vkserve_nocopy  no copy at all (the implicit im2col loader everywhere)
# First the fp16 copy op cases on tensor cores (HEAD's kernel and x8's;
# references from onnxruntime on lavapipe), then, each after a warm-up of
# the same work, alternating, two rounds: ResNet-50's 23 convolutions at b32
# FP16, then resnet50 FP16 at b32 and b1 (b1 with the 128-output rule was
# never measured).
# Device call: carry [".bundle-next"], command
#   bash benchmarks/results/2026-12-02-session22-h200/next/run.sh
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin next 570
BINS="vkserve_nocopy vkserve vkserve_x8 vkserve_all"
$T 40 python3 $VK/peers.py export resnet50 /tmp/r50.onnx --opset 17 > $R/export.log 2>&1 &
EXPORT=$!
for t in runtime_op_cases_test runtime_op_cases_test_x8; do
  VKSERVE_OP_CASES_DIR=$VK/cases $T 75 $VK/bin/$t > $R/op_cases_$t.txt 2>&1
  echo "$t rc=$?: $(grep -c '^\[       OK' $R/op_cases_$t.txt) OK, $(grep -c '^\[  FAILED  \]' $R/op_cases_$t.txt) failed"
  grep -E "^\[  FAILED|Failure" $R/op_cases_$t.txt | head -10
done
C="benchmarks/ops/resnet_convs.py --batch 32 --float16"
for bin in $BINS; do
  $T 40 python3 $C $VK/bin/$bin --warmup 2 --repeat 1 > /dev/null 2>&1  # pipelines compiled
done
for round in 1 2; do
  for bin in $BINS; do
    echo "== $bin round $round SM $(clock | cut -d, -f1)"
    $T 40 python3 $C $VK/bin/$bin --warmup 2 --repeat 5 --out /tmp/rc_$bin 2>&1
  done
done | tee $R/convs.txt
wait $EXPORT
for n in 32 1; do
  for bin in $BINS; do
    $T 40 $VK/bin/$bin infer /tmp/r50.onnx --dim N=$n --precision FP16 --repeat 100 --warmup 10 > /dev/null 2>&1
  done
  for bin in $BINS $BINS; do
    echo "-- resnet50 b$n FP16 $bin SM $(clock | cut -d, -f1): $($T 40 $VK/bin/$bin infer /tmp/r50.onnx --dim N=$n --precision FP16 --repeat 50 --warmup 5 2>&1 | grep '^timing' | sed 's/.*gpu-compute/gpu-compute/')"
  done
done | tee $R/models.txt
device_call_end
