#!/bin/bash
# Session 20, device call 4 (build: call 3's + direct.patch): the
# tensor-core GEMM's next K step stored to shared memory as soon as it is
# loaded (VKSERVE_DIRECT=1: the "_d" variants; the free stage is written
# before this step's matrix work) against stored after the matrix work
# (the committed kernel), every 2-stage tile pinned, FP16.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s20
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call4.tar.xz.part && mv $OUT/call4.tar.xz.part $OUT/call4.tar.xz; }
( sleep ${WATCHDOG_S:-400}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --precision FP16"
S='square_2048$|square_4096$|bert_b8_qkv|bert_b8_ffn|gpt2_b8_qkv'
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
$T 60 $G 'square_4096$' --float16 --warmup 3 --repeat 20 > $R/warmup.txt 2>&1; tail -1 $R/warmup.txt
for op in --float16 --weights; do
  for t in 128x128w4 128x128 64x64 128x64 64x128 64x64k64; do
    for d in 0 1; do
      echo "-- cm$t $op direct=$d SM $(clock)"
      if [ $d = 1 ]; then VKSERVE_DIRECT=1 $T 60 $G "$S" $op --plan cm$t --warmup 0.1 --repeat 10 --statistics | tail -n +2
      else $T 60 $G "$S" $op --plan cm$t --warmup 0.1 --repeat 10 --statistics | tail -n +2; fi
    done
  done
done > $R/direct.txt 2>&1
grep -v pipeline $R/direct.txt
grep "pipeline" $R/direct.txt | sed 's/.*pipeline \(ops[^ ]*\).*Register Count \([0-9]*\).*/\1 \2/' | sort -u
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
