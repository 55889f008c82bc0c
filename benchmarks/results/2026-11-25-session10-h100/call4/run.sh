#!/bin/bash
# Session 10, device call 4: issue 11's coopmat cost-model calibration.
# Every tensor-core tile x K split pinned on mid-size shapes, B an fp16
# weight (FP16 precision, as models run), and the cost model's own pick.
set -uo pipefail
source benchmarks/device_common.sh
mkdir -p /tmp/vk; xz -dc .bundle-c4/bundle.tar.xz | tar xf - -C /tmp/vk; VK=/tmp/vk/.bundle-s10
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
bench() { python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve "$@"; }
shapes='square_1024$|square_2048$|bert_b8_qkv|bert_b8_ffn|bert_b1_ffn1'
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
echo "== warm-up"; bench 'square_4096$' --precision FP16 --weights --warmup 4 --repeat 50 | tail -1
echo "-- auto SM $(clock)"; bench "$shapes" --precision FP16 --weights --warmup 0.3 --repeat 30 | tail -n +2
for t in cm128x128w4 cm128x128 cm128x256 cm256x128 cm64x64; do
  for s in 1 2 4; do
    echo "-- $t/$s SM $(clock)"
    bench "$shapes" --precision FP16 --weights --plan "$t/$s" --warmup 0.3 --repeat 30 | tail -n +2
  done
done
echo "-- auto again SM $(clock)"; bench "$shapes" --precision FP16 --weights --warmup 0.3 --repeat 30 | tail -n +2
echo "== SM clock at end: $(clock)"
stop_clock_sampling
