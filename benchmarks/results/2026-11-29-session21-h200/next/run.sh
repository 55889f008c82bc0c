#!/bin/bash
# Prepared in session 21, NOT RUN (its device time ran out). Build: the
# repository at or after this file's commit + pointwise_raw.patch as
# bin/vkserve, the commit alone as bin/vkserve_base, bundled as
# .bundle-next/bundle.tar.xz. The patch reads fp16 pointwise convolutions'
# X as raw 8-byte halves (no fp16 -> fp32 -> fp16 round trip) and packs
# im2col taps as they load; its op cases pass on lavapipe (emulated).
# Call 6 showed the im2col loader costs 35-67 % of a convolution's time.
# ResNet-50's convolutions at b32 and resnet50 b32 FP16, alternating.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin next 130
$T 40 python3 $VK/peers.py export resnet50 /tmp/r50.onnx --opset 17 > $R/export.log 2>&1 &
EXPORT=$!
C="benchmarks/ops/resnet_convs.py --batch 32 --float16"
$T 30 python3 $C $VK/bin/vkserve --warmup 3 --repeat 3 > /dev/null 2>&1
for bin in vkserve_base vkserve vkserve_base vkserve; do
  echo "== $bin SM $(clock | cut -d, -f1)"
  $T 25 python3 $C $VK/bin/$bin --warmup 1 --repeat 5 --out /tmp/rc_$bin 2>&1
done | tee $R/convs.txt
wait $EXPORT
for bin in vkserve_base vkserve vkserve_base vkserve; do
  echo "-- resnet50 b32 FP16 $bin SM $(clock | cut -d, -f1): $($T 20 $VK/bin/$bin infer /tmp/r50.onnx --dim N=32 --precision FP16 --repeat 30 --warmup 2 2>&1 | grep '^timing' | sed 's/.*gpu-compute/gpu-compute/')"
done | tee $R/models.txt
device_call_end
