#!/bin/bash
# Prepared in session 20, NOT RUN (the device budget ran out). Build: the
# repository at or after this file's commit + gemm_experiments.patch (whose
# variants pass the gemm_f16io op cases on lavapipe through their emulated
# forms, a 4 x 6 block grid among them), bundled as .bundle-next/bundle.tar.xz.
# Two changes to the tensor-core GEMM, each selected by an environment
# variable, against the committed kernel (FP16, fp16 weights):
#   VKSERVE_P2=1       loads two K steps ahead ("_p2", two-stage tiles)
#   VKSERVE_SWIZZLE=G  workgroups walk groups of G block rows column by
#                      column ("_swG", G = 4 or 8) for L2 reuse
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin next 200
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --precision FP16 --weights"
S='square_1024$|square_2048$|square_4096$|bert_b8_qkv|bert_b8_ffn|gpt2_b8_qkv|gpt2_b8_lm_head'
$T 30 $G 'square_4096$' --warmup 2 --repeat 10 | tail -1
for t in 64x64 128x128 128x128w4 128x256; do
  for v in base VKSERVE_P2=1 VKSERVE_SWIZZLE=4 VKSERVE_SWIZZLE=8; do
    [ $t = 128x256 ] && [ $v = VKSERVE_P2=1 ] && continue  # one stage: no _p2 variant
    echo "-- cm$t $v SM $(clock | cut -d, -f1)"
    env ${v/base/X=0} $T 40 $G "$S" --plan cm$t --warmup 0.1 --repeat 10 --statistics | tail -n +2
  done
done > $R/gemm.txt 2>&1
grep -v pipeline $R/gemm.txt
grep "pipeline" $R/gemm.txt | sed 's/.*pipeline \(ops[^ ]*\).*Register Count \([0-9]*\).*/\1 \2/' | sort -u
device_call_end
