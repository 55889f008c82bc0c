#!/bin/bash
# Prepared in session 20, NOT RUN (the device budget ran out; build: 5dc00e2 +
# prefetch2.patch, which passes the gemm_f16io op cases on lavapipe through
# its emulated variants): the
# tensor-core GEMM loading two K steps ahead (VKSERVE_P2=1: the "_p2"
# variants of the two-stage tiles) against one step ahead, FP16, fp16 weights.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s20
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/next.tar.xz.part && mv $OUT/next.tar.xz.part $OUT/next.tar.xz; }
( sleep ${WATCHDOG_S:-150}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --precision FP16 --weights"
S='square_1024$|square_4096$|bert_b8_qkv|bert_b8_ffn|gpt2_b8_qkv'
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
$T 30 $G 'square_4096$' --warmup 2 --repeat 10 | tail -1
for t in 64x64 128x128 128x128w4; do
  for p in 0 1; do
    echo "-- cm$t p2=$p SM $(clock | cut -d, -f1)"
    if [ $p = 1 ]; then VKSERVE_P2=1 $T 30 $G "$S" --plan cm$t --warmup 0.1 --repeat 10 --statistics | tail -n +2
    else $T 30 $G "$S" --plan cm$t --warmup 0.1 --repeat 10 --statistics | tail -n +2; fi
  done
done > $R/p2.txt 2>&1
grep -v pipeline $R/p2.txt
grep "pipeline" $R/p2.txt | sed 's/.*pipeline \(ops[^ ]*\).*Register Count \([0-9]*\).*/\1 \2/' | sort -u
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
