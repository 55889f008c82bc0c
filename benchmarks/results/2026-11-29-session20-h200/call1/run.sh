#!/bin/bash
# Session 20, device call 1 (build 289f78d): what cooperative matrices reach on
# this GPU in NVIDIA's own sample (jeffbolznv/vk_cooperative_matrix_perf @cc3f225,
# built here against Vulkan-Headers main, its shipped SPIR-V: "shmem" =
# VK_KHR_cooperative_matrix subgroup scope, "workgroup" = VK_NV_cooperative_matrix2),
# beside vkserve's tensor-core GEMM tiles pinned on 4096^3 and cuBLAS.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s20
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call1.tar.xz.part && mv $OUT/call1.tar.xz.part $OUT/call1.tar.xz; }
( sleep ${WATCHDOG_S:-500}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --repeat 20"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
$T 60 $G 'square_4096$' --precision FP16 --float16 --warmup 3 > $R/warmup.txt 2>&1; tail -1 $R/warmup.txt
echo "== vk_cooperative_matrix_perf $(date -u +%FT%TZ) SM $(clock)"
( cd $VK/vkcm && $T 200 ../bin/vkcm --dim=4096 ) > $R/vkcm.txt 2>&1
grep -iE "tflops|shmem|workgroup|float|^test" $R/vkcm.txt | head -80
echo "== vkserve tiles, float16 model $(date -u +%FT%TZ) SM $(clock)"
for t in auto cm128x128w4 cm128x256 cm256x128 cm128x128 cm64x64; do
  plan=""; [ $t != auto ] && plan="--plan $t"
  echo "-- $t SM $(clock)"
  $T 40 $G 'square_4096$|gpt2_b8_qkv' --precision FP16 --float16 --warmup 0.3 --statistics $plan 2>&1 | tail -n +2
done > $R/tiles.txt 2>&1
cat $R/tiles.txt
echo "== cuBLAS $(date -u +%FT%TZ) SM $(clock)"
$T 60 python3 benchmarks/ops/gemm_peers.py 'square_4096$|gpt2_b8_qkv' > $R/cublas.txt 2>&1
grep -v "^\s*$" $R/cublas.txt | head
echo "== vk_cooperative_matrix_perf again $(date -u +%FT%TZ) SM $(clock)"
( cd $VK/vkcm && $T 150 ../bin/vkcm --dim=4096 ) > $R/vkcm2.txt 2>&1
grep -i "tflops" $R/vkcm2.txt | head -60
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
