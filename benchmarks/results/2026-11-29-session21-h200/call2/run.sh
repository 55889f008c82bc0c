#!/bin/bash
# Session 21, device call 2 (build: HEAD 9043b35's engine, .bundle-c2):
# ResNet-50's 23 distinct convolutions at batch 32, fp16 tensors, as one
# profiled model (benchmarks/ops/resnet_convs.py), once with the cost
# model's plans and once per tensor-core tile pinned.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin c2 300
C="python3 benchmarks/ops/resnet_convs.py $VK/bin/vkserve --batch 32 --float16"
$T 60 $C --warmup 3 --repeat 3 --plan auto > /dev/null 2>&1
echo "SM $(clock)"
$T 240 $C --warmup 1 --repeat 10 --plan auto --plan cm64x64 --plan cm64x64s1 --plan cm128x128 \
  --plan cm128x128w4 --plan cm128x256 --plan cm256x128 --plan auto 2>&1 | tee $R/sweep.txt
echo "SM $(clock)"
device_call_end
