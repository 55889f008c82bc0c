#!/bin/bash
# Session 21, device call 6 (.bundle-c6: bin/vkserve = call 5's new build;
# bin/vkserve_noload = the same with the tensor-core im2col B loader making
# its values up instead of loading them, an ablation). Where a ResNet-50 3x3
# convolution's time goes: the convolution, the convolution without B's
# loads, and the same product as a plain MatMul (gemm_bench.py).
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin c6 150
C="benchmarks/ops/resnet_convs.py --batch 32 --float16 --only c3x3_64_64|c3x3_256_256_h14$|c1x1_1024_512"
$T 40 python3 $C $VK/bin/vkserve --warmup 4 --repeat 3 > /dev/null 2>&1
for bin in vkserve vkserve_noload vkserve vkserve_noload; do
  echo "== $bin SM $(clock | cut -d, -f1)"
  $T 30 python3 $C $VK/bin/$bin --warmup 1 --repeat 5 --out /tmp/rc_$bin 2>&1
done | tee $R/ablation.txt
echo "== as GEMMs SM $(clock | cut -d, -f1)"
$T 40 python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --float16 '_as_gemm' --warmup 1 --repeat 10 --plan cm64x64 | tee $R/as_gemm.txt
$T 40 python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --float16 '_as_gemm' --warmup 1 --repeat 10 | tee -a $R/as_gemm.txt
device_call_end
