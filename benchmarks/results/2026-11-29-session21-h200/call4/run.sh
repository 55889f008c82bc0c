#!/bin/bash
# Session 21, device call 4 (the build of call 3, .bundle-c3): why a pinned
# plan ran 2.2x slower than the same kernel chosen by the cost model in
# calls 2 and 3. One shape alone, two, and in reverse order.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin c4 200
C="python3 benchmarks/ops/resnet_convs.py $VK/bin/vkserve --batch 32 --float16"
$T 60 $C --warmup 3 --repeat 3 --plan auto > /dev/null 2>&1
echo "SM $(clock)"
for only in 'c3x3_64_64' 'c3x3_64_64|c1x1_64_64' 'c3x3_64_64|c1x1_64_256'; do
  echo "== only $only"
  $T 60 $C --only "$only" --warmup 1 --repeat 5 --plan auto --plan cm64x64 --plan auto --plan cm64x64 --plan cm128x256 2>&1
done | tee $R/only.txt
echo "SM $(clock)"
device_call_end
