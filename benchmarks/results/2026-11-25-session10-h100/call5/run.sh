#!/bin/bash
# Session 10, device call 5: issue 11's wave cost model (tensor-core tile
# and split chosen from the SM count) on the shapes it was fitted to and
# others, with every operand storage; the fitted shapes' best pinned plans
# again beside it.
set -uo pipefail
source benchmarks/device_common.sh
mkdir -p /tmp/vk; xz -dc .bundle-c5/bundle.tar.xz | tar xf - -C /tmp/vk; VK=/tmp/vk/.bundle-s10
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
bench() { python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve "$@"; }
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
$VK/bin/vkserve devices 2>&1 | grep -E "\[|SMs|matrix"
echo "== warm-up"; bench 'square_4096$' --precision FP16 --weights --warmup 4 --repeat 50 | tail -1
fitted='square_1024$|square_2048$|bert_b8_qkv|bert_b8_ffn|bert_b1_ffn1'
others='square_4096$|bert_b1_qkv|bert_b1_ffn2|attn_b|skinny_16|square_2048_tb'
echo "-- chosen, FP16 fp16 weights, fitted shapes SM $(clock)"; bench "$fitted" --precision FP16 --weights --warmup 0.3 --repeat 30 | tail -n +2
echo "-- chosen, FP16 fp16 weights, other shapes SM $(clock)"; bench "$others" --precision FP16 --weights --warmup 0.3 --repeat 30 | tail -n +2
echo "-- chosen, FP16 B an input SM $(clock)"; bench "$fitted|$others" --precision FP16 --warmup 0.3 --repeat 30 | tail -n +2
echo "-- chosen, float16 model SM $(clock)"; bench "$fitted|$others" --float16 --warmup 0.3 --repeat 30 | tail -n +2
echo "-- pinned best of the sweep SM $(clock)"
bench 'square_1024$' --precision FP16 --weights --plan cm128x128/2 --warmup 0.3 --repeat 30 | tail -n +2
bench 'bert_b8_ffn1' --precision FP16 --weights --plan cm128x256/1 --warmup 0.3 --repeat 30 | tail -n +2
bench 'bert_b1_ffn1' --precision FP16 --weights --plan cm64x64/4 --warmup 0.3 --repeat 30 | tail -n +2
echo "== SM clock at end: $(clock)"
stop_clock_sampling
