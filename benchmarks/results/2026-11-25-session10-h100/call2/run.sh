#!/bin/bash
# Session 10, device call 2: issue 11's raw fp16 operand loads (float16
# models, fp16 weights) and issue 12's batching with one resnet50 instance.
set -uo pipefail
source benchmarks/device_common.sh
mkdir -p /tmp/vk; xz -dc .bundle-c2/bundle.tar.xz | tar xf - -C /tmp/vk; VK=/tmp/vk/.bundle-s10
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
bench() { python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve "$@"; }
shapes='square_4096$|bert_b8_ffn|square_2048$'
echo "== float16 model, tile chosen"; bench "$shapes" --float16 --warmup 2 --repeat 20
echo "== FP16, fp16 weights, tile chosen"; bench "$shapes" --precision FP16 --weights --warmup 0.3 --repeat 20
echo "== FP16, B an input (fp32 operands), tile chosen"; bench "$shapes" --precision FP16 --warmup 0.3 --repeat 20
for t in cm128x128w4 cm128x128 cm128x256 cm256x128 cm64x64; do
  echo "-- $t float16 / weights"
  bench 'square_4096$' --float16 --plan $t --warmup 0.3 --repeat 20 --statistics 2>&1 | tail -n +2
  bench 'square_4096$' --precision FP16 --weights --plan $t --warmup 0.3 --repeat 20 --statistics 2>&1 | tail -n +2
done
echo "== SM clock after gemm: $(clock)"
python3 benchmarks/ops/gemm_peers.py "$shapes" 2>&1 | tail -6
echo "== batching, one resnet50_batch instance $(date -u +%FT%TZ)"
OUT=$OUT/batch1 INSTANCES=1 CLIENTS="1 64" bash $VK/run_batching_on_device.sh > $OUT/batching.log 2>&1
tail -30 $OUT/batching.log
echo "== SM clock at end: $(clock)"
stop_clock_sampling
