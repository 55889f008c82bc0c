#!/bin/bash
# Session 20, device call 3 (build: 289f78d + three candidate tensor-core
# tiles: 128x64 and 64x128 with 4 subgroups of 64x32 / 32x64, and 64x64k64,
# 64 deep per K step): every tile x split pinned at FP16 with fp16 weights
# (as models run), for benchmarks/ops/fit_coopmat_cost.py; attention at
# FP16 on BERT/GPT-2's s128 through each kernel; bert-base b8 FP16 profiled.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s20
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call3.tar.xz.part && mv $OUT/call3.tar.xz.part $OUT/call3.tar.xz; }
( sleep ${WATCHDOG_S:-540}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
( python3 $VK/peers.py export bert-base /tmp/bert.onnx --opset 17 > $R/export.log 2>&1 ) &
EXPORT=$!
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --precision FP16 --weights"
S='square_1024$|square_2048$|square_4096$|bert_b1_ffn1|bert_b8_qkv|bert_b8_ffn|gpt2_b8_qkv'
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
$T 60 $G 'square_4096$' --warmup 3 --repeat 20 > $R/warmup.txt 2>&1; tail -1 $R/warmup.txt
{
  echo "-- auto SM $(clock)"; $T 60 $G "$S" --warmup 0.1 --repeat 10 --statistics | tail -n +2
  for t in 128x64 64x128 64x64k64 128x128w4 128x128 128x256 256x128 64x64 64x64s1; do
    for s in 1 2 4; do
      echo "-- cm$t/$s SM $(clock)"
      $T 60 $G "$S" --plan cm$t/$s --warmup 0.1 --repeat 10 --statistics | tail -n +2
    done
  done
} > $R/sweep.txt 2>&1
grep -v "pipeline" $R/sweep.txt | head -20; grep "^-- cm.*/1 " -A9 $R/sweep.txt | grep -v pipeline | head -100
grep "pipeline" $R/sweep.txt | sed 's/.*pipeline \(ops[^ ]*\).*Register Count \([0-9]*\).*/\1 \2/' | sort -u
A="python3 benchmarks/ops/attention_bench.py $VK/bin/vkserve --precision FP16 --repeat 20 --warmup 0.3"
echo "== attention $(date -u +%FT%TZ) SM $(clock)"
$T 90 $A 's128' --kinds chosen,unfused,coopmat,graph > $R/attention.txt 2>&1; grep -v "^\s*$" $R/attention.txt
$T 60 $G 'attn_' --warmup 0.1 --repeat 10 > $R/attn_gemm.txt 2>&1; cat $R/attn_gemm.txt
wait $EXPORT
echo "== bert-base b8 FP16 $(date -u +%FT%TZ) SM $(clock)"
$T 60 $VK/bin/vkserve infer /tmp/bert.onnx --dim N=8 --precision FP16 --repeat 30 --warmup 2 > $R/bert16.txt 2>&1; tail -5 $R/bert16.txt
$T 30 $VK/bin/vkserve infer /tmp/bert.onnx --dim N=8 --precision FP16 --repeat 5 --profile $R/bert16.json > /dev/null 2>&1
python3 $VK/profile_ops.py $R/bert16.json 30 > $R/bert16_profile.txt 2>&1; head -45 $R/bert16_profile.txt; rm -f $R/bert16.json
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
