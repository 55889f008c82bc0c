#!/bin/bash
# Prepared in session 22, NOT RUN (its device time ran out). The im2col
# copy's kernel with FastDiv (4923f64) has not been timed; call 4 timed the
# division version (dbaeeac's, 4177d04's kernel). Bundle as
# .bundle-next/bundle.tar.xz:
#   bin/vkserve_div   dbaeeac (divisions; the copy at >= 128 outputs/group)
#   bin/vkserve       e0cc8c5 or later (FastDiv, fp16 read one at a time;
#                     same rule)
#   bin/vkserve_x8    + im2col_x8.patch: eight fp16 elements per invocation,
#                     one 16-byte store, the index decomposed once and
#                     stepped (the op cases of the conv and gemm_f16io
#                     families pass on lavapipe with it)
#   bin/vkserve_all   + copy_every_window.patch (FastDiv; the copy for every
#                     tensor-core window, as call 4 tried with divisions)
#   bin/vkserve_impl  581d95a's (no copy at all; /tmp/b3's in session 22)
# Each after a warm-up of the same work, alternating, two rounds:
# ResNet-50's 23 convolutions at b32 FP16, then resnet50 FP16 at b32 and b1
# (b1 with the 128-output rule was never measured).
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin next 420
$T 40 python3 $VK/peers.py export resnet50 /tmp/r50.onnx --opset 17 > $R/export.log 2>&1 &
EXPORT=$!
C="benchmarks/ops/resnet_convs.py --batch 32 --float16"
for bin in vkserve_impl vkserve_div vkserve vkserve_x8 vkserve_all; do
  $T 40 python3 $C $VK/bin/$bin --warmup 2 --repeat 1 > /dev/null 2>&1  # pipelines compiled
done
for round in 1 2; do
  for bin in vkserve_impl vkserve_div vkserve vkserve_x8 vkserve_all; do
    echo "== $bin round $round SM $(clock | cut -d, -f1)"
    $T 40 python3 $C $VK/bin/$bin --warmup 2 --repeat 5 --out /tmp/rc_$bin 2>&1
  done
done | tee $R/convs.txt
wait $EXPORT
for n in 32 1; do
  for bin in vkserve_impl vkserve_div vkserve vkserve_x8 vkserve_all; do
    $T 40 $VK/bin/$bin infer /tmp/r50.onnx --dim N=$n --precision FP16 --repeat 100 --warmup 10 > /dev/null 2>&1
  done
  for bin in vkserve_impl vkserve_div vkserve vkserve_x8 vkserve_all vkserve_impl vkserve_div vkserve vkserve_x8 vkserve_all; do
    echo "-- resnet50 b$n FP16 $bin SM $(clock | cut -d, -f1): $($T 40 $VK/bin/$bin infer /tmp/r50.onnx --dim N=$n --precision FP16 --repeat 50 --warmup 5 2>&1 | grep '^timing' | sed 's/.*gpu-compute/gpu-compute/')"
  done
done | tee $R/models.txt
device_call_end
