#!/bin/bash
# Session 10, device call 7: the Conv (im2col) side of issue 11's
# tensor-core cost model: every tile x K split (1, 2, 4) pinned on
# conv_bench's ResNet-50 / MobileNet-V2 shapes at FP16, and the current
# (speed-rated) choice.
set -uo pipefail
source benchmarks/device_common.sh
mkdir -p /tmp/vk; xz -dc .bundle-c7/bundle.tar.xz | tar xf - -C /tmp/vk; VK=/tmp/vk/.bundle-s10
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
bench() { python3 benchmarks/ops/conv_bench.py $VK/bin/vkserve "$@"; }
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve 'square_4096$' --precision FP16 --weights --warmup 4 --repeat 50 | tail -1
echo "-- auto SM $(clock)"; bench --precision FP16 --warmup 0.3 --repeat 30 | tail -n +2
for t in cm128x128w4 cm128x128 cm128x256 cm256x128 cm64x64; do
  for s in 1 2 4; do
    echo "-- $t/$s SM $(clock)"
    bench --precision FP16 --plan "$t/$s" --warmup 0.3 --repeat 30 | tail -n +2
  done
done
echo "-- auto again SM $(clock)"; bench --precision FP16 --warmup 0.3 --repeat 30 | tail -n +2
echo "== SM clock at end: $(clock)"
stop_clock_sampling
