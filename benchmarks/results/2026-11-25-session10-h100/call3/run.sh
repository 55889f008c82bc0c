#!/bin/bash
# Session 10, device call 3: issue 11's candidate coopmat tiles (fp32
# operands packed as loaded: 128x128w4p, 128x256p; a 64-deep K step:
# 128x128k64) beside the tiles they would replace, and the raw fp16 loads'
# op cases on real tensor cores.
set -uo pipefail
source benchmarks/device_common.sh
mkdir -p /tmp/vk; xz -dc .bundle-c3/bundle.tar.xz | tar xf - -C /tmp/vk; VK=/tmp/vk/.bundle-s10
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
VKSERVE_OP_CASES_DIR=$VK/cases timeout 200 $VK/bin/runtime_op_cases_test > $OUT/op_cases.log 2>&1
echo "op cases rc=$?: $(grep -c '^\[       OK' $OUT/op_cases.log) OK, $(grep -c '^\[  FAILED  \]' $OUT/op_cases.log) failed, $(grep -c '^\[  SKIPPED' $OUT/op_cases.log) skipped"
grep -E "^\[  FAILED|Failure" $OUT/op_cases.log | head -20
bench() { python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve "$@"; }
echo "== warm-up $(date -u +%FT%TZ)"; bench 'square_4096$' --precision FP16 --warmup 3 --repeat 20 | tail -1
for round in 1 2; do
for t in cm128x128w4 cm128x128w4p cm128x256 cm128x256p cm128x128k64; do
  echo "-- round $round $t: fp32 operands / fp16 weights / float16 model  SM $(clock)"
  bench 'square_4096$' --precision FP16 --plan $t --warmup 0.3 --repeat 20 --statistics 2>&1 | tail -n +2
  bench 'square_4096$' --precision FP16 --weights --plan $t --warmup 0.3 --repeat 20 --statistics 2>&1 | tail -n +2
  bench 'square_4096$' --float16 --plan $t --warmup 0.3 --repeat 20 --statistics 2>&1 | tail -n +2
done
done
echo "== SM clock at end: $(clock)"
stop_clock_sampling
