#!/bin/bash
# Session 10, device call 1: issue 12's overhead rows (inline runs + hand-back
# before answering) and issue 11's pinned-tile compile statistics.
set -uo pipefail
R=$(pwd)
source benchmarks/device_common.sh
mkdir -p /tmp/vk; xz -dc .bundle-c1/bundle.tar.xz | tar xf - -C /tmp/vk; VK=/tmp/vk/.bundle-s10
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
OUT=$OUT/overhead REPEATS=3 SECONDS_PER_RUN=5 bash $VK/run_overhead_on_device.sh > $OUT/overhead.log 2>&1
tail -40 $OUT/overhead.log
echo "== gemm statistics $(date -u +%FT%TZ) SM clock: $(clock)"
bench() { python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve "$@"; }
bench 'square_4096$' --precision FP16 --warmup 2 --repeat 20
for t in cm128x128w4 cm128x128 cm128x256 cm64x64; do
  echo "-- $t"; bench 'square_4096$' --precision FP16 --plan $t --warmup 0.3 --repeat 20 --statistics 2>&1 | tail -n +2
  bench 'square_4096$' --float16 --plan $t --warmup 0.3 --repeat 20 --statistics 2>&1 | tail -n +2
done
for t in 128x64 64x64; do
  echo "-- fp32 $t"; bench 'square_4096$' --plan $t --warmup 0.3 --repeat 20 --statistics 2>&1 | tail -n +2
done
echo "== SM clock after: $(clock)"
python3 benchmarks/ops/gemm_peers.py 'square_4096$' 2>&1 | tail -5
stop_clock_sampling
