#!/bin/bash
# Session 11, device call 2: where the tensor-core attention kernel's time
# goes. An experimental build (not committed) compiled the kernel with parts
# cut out (ABL bits: 1 no K/V prefetch, 2 no S = Q K' products, 4 no exp,
# 8 no P V phase; 15 all four), chosen by VKSERVE_FA_ABL; the outputs are
# wrong, only the times count.
set -uo pipefail
source benchmarks/device_common.sh
device_unpack_bundle .bundle-c2
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
bench() { python3 benchmarks/ops/attention_bench.py $VK/bin/vkserve "$@" --precision FP16 --kinds coopmat --repeat 20; }
bench 's2048_b1$' --warmup 3 | tail -1
for abl in "" 1 2 4 8 15; do
  echo "-- ABL=${abl:-none} SM $(clock)"
  VKSERVE_FA_ABL=$abl bench 's512_b8|s2048_b1$|s128_b8' --warmup 0.5 | tail -n +2
done
echo "== SM clock at end: $(clock)"
stop_clock_sampling
