#!/bin/bash
# Session 11, device call 7: FP16 accuracy with the tensor-core attention
# (build c7ff3f5): `vkserve infer --precision FP16
# --compare` runs each model at FP16 and at FP32 on the same random inputs
# and reports the max and mean error (issue 11's bound: 1e-2 relative).
set -uo pipefail
source benchmarks/device_common.sh
device_unpack_bundle .bundle-c7
device_env $VK/env.sh
mkdir -p /tmp/models
for m in bert-base gpt2; do
  [ -f /tmp/models/$m.onnx ] || python3 $VK/peers.py export $m /tmp/models/$m.onnx --opset 17 > /dev/null 2>&1
  for n in 1 8; do
    echo "== $m b$n $(date -u +%FT%TZ) SM $(clock)"
    $VK/bin/vkserve infer /tmp/models/$m.onnx --dim N=$n --precision FP16 --compare 2>&1 | grep -iE "error|compare|kernel|coopmat" | head -8
    $VK/bin/vkserve inspect /tmp/models/$m.onnx --dim N=$n --precision FP16 2>&1 | grep -m1 -o "coopmat flash-attention kernel[^)]*)"
  done
done
