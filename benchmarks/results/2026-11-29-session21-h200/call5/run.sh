#!/bin/bash
# Session 21, device call 5: the tensor-core im2col loader stepping its taps
# (bin/vkserve) against call 3's build (bin/vkserve_base), .bundle-c5.
# ResNet-50's convolutions at b32 (fp16 tensors, cost model's plans), then
# the CNNs at FP16, alternating the builds.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin c5 330
for m in resnet50 efficientnet_b0 mobilenet_v2; do $T 60 python3 $VK/peers.py export $m /tmp/$m.onnx --opset 17 >> $R/export.log 2>&1; done &
EXPORT=$!
C="benchmarks/ops/resnet_convs.py --batch 32 --float16"
$T 60 python3 $C $VK/bin/vkserve --warmup 3 --repeat 3 > /dev/null 2>&1
for bin in vkserve_base vkserve vkserve_base vkserve; do
  echo "== $bin SM $(clock | cut -d, -f1)"
  $T 60 python3 $C $VK/bin/$bin --warmup 1 --repeat 5 --out /tmp/rc_$bin 2>&1
done | tee $R/convs.txt
wait $EXPORT
for m in resnet50 efficientnet_b0 mobilenet_v2; do
  for n in 32 1; do
    for bin in vkserve_base vkserve vkserve_base vkserve; do
      echo "-- $m b$n FP16 $bin SM $(clock | cut -d, -f1): $($T 60 $VK/bin/$bin infer /tmp/$m.onnx --dim N=$n --precision FP16 --repeat 30 --warmup 2 2>&1 | grep '^timing' | sed 's/.*gpu-compute/gpu-compute/')"
    done
  done
done | tee $R/models.txt
$T 60 $VK/bin/vkserve infer /tmp/resnet50.onnx --dim N=32 --precision FP16 --repeat 5 --profile $R/r50.json > /dev/null 2>&1
python3 $VK/profile_ops.py $R/r50.json 8
echo "== PyTorch SM $(clock)"
$T 90 python3 $VK/peers.py time resnet50 --batch 32 --dtype fp16 > $R/peers.jsonl 2>> $R/peers.err
cat $R/peers.jsonl
xz -1 $R/*.json
device_call_end
