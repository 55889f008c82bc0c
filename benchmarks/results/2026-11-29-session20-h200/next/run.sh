#!/bin/bash
# Prepared in session 20, NOT RUN (the device budget ran out). Build: 5dc00e2
# or later + prefetch2.patch (which passes the gemm_f16io op cases on lavapipe
# through its emulated variants), bundled as .bundle-next/bundle.tar.xz. The
# tensor-core GEMM loading two K steps ahead (VKSERVE_P2=1: the "_p2"
# variants of the two-stage tiles) against one step ahead, FP16, fp16 weights.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin next 150
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --precision FP16 --weights"
S='square_1024$|square_4096$|bert_b8_qkv|bert_b8_ffn|gpt2_b8_qkv'
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
device_call_end
