#!/bin/bash
# Session 21, device call 1. Build: 9043b35 + session 20's
# next/gemm_experiments.patch (VKSERVE_P2, VKSERVE_SWIZZLE), bundled as
# .bundle-c1. (1) The prepared GEMM A/B (session 20 next/run.sh). (2) GEMV
# 1x4096x4096 beside the shader copy's bandwidth in the same call.
# (3) FP16 vs FP32 accuracy (--compare) of the five models. (4) resnet50
# b32 FP16 profiled (per-node trace kept) and ViT-B/16 b32 re-timed, with
# PyTorch CUDA graphs in the same call.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin c1 560
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --precision FP16 --weights"
S='square_1024$|square_2048$|square_4096$|bert_b8_qkv|bert_b8_ffn|gpt2_b8_qkv|gpt2_b8_lm_head'
$T 30 $G 'square_4096$' --warmup 2 --repeat 10 | tail -1
for t in 64x64 128x128 128x128w4 128x256; do
  for v in base VKSERVE_P2=1 VKSERVE_SWIZZLE=4 VKSERVE_SWIZZLE=8; do
    [ $t = 128x256 ] && [ $v = VKSERVE_P2=1 ] && continue
    echo "-- cm$t $v SM $(clock | cut -d, -f1)"
    env ${v/base/X=0} $T 40 $G "$S" --plan cm$t --warmup 0.1 --repeat 10 --statistics | tail -n +2
  done
done > $R/gemm.txt 2>&1
grep -v pipeline $R/gemm.txt
grep "pipeline" $R/gemm.txt | sed 's/.*pipeline \(ops[^ ]*\).*Register Count \([0-9]*\).*/\1 \2/' | sort -u
echo "== GEMV and copy SM $(clock)"
for p in FP32 FP16; do $T 30 python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --precision $p --weights 'gemv_4096|gpt2_decode' --warmup 1 --repeat 30 --statistics; done 2>&1 | grep -v pipeline | tee $R/gemv.txt
$T 60 $VK/bin/vkserve_gpu_bench --benchmark_filter='copy/shader/(256MiB|1GiB)' --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>&1 | tee $R/copy.txt | grep -v "^\["
echo "== exports $(date -u +%FT%TZ)"
for m in resnet50 efficientnet_b0 mobilenet_v2 bert-base gpt2; do $T 120 python3 $VK/peers.py export $m /tmp/$m.onnx --opset 17 >> $R/export.log 2>&1; done
$T 200 python3 $VK/peers.py export vit_b_16 /tmp/vit.onnx --batch 32 --dynamo --opset 18 >> $R/export.log 2>&1
ls -la /tmp/*.onnx
echo "== compare"
for m in resnet50 efficientnet_b0 mobilenet_v2 bert-base gpt2; do
  for n in 1 8; do
    echo "-- $m b$n: $($T 60 $VK/bin/vkserve infer /tmp/$m.onnx --dim N=$n --precision FP16 --compare --repeat 3 2>&1 | grep -i 'compare\|error' | head -3)"
  done
done | tee $R/compare.txt
echo "== resnet50 b32 FP16 profile SM $(clock)"
$T 60 $VK/bin/vkserve infer /tmp/resnet50.onnx --dim N=32 --precision FP16 --repeat 30 --warmup 2 2>&1 | grep timing
$T 60 $VK/bin/vkserve infer /tmp/resnet50.onnx --dim N=32 --precision FP16 --repeat 5 --profile $R/r50.json > /dev/null 2>&1
python3 $VK/profile_ops.py $R/r50.json 20
$VK/bin/vkserve inspect /tmp/resnet50.onnx --dim N=32 > $R/r50_inspect.txt 2>&1
echo "== vit b32 SM $(clock)"
for p in FP16 FP32; do $T 90 $VK/bin/vkserve infer /tmp/vit.onnx --precision $p --repeat 30 --warmup 3 2>&1 | grep timing; done
$T 60 $VK/bin/vkserve infer /tmp/vit.onnx --precision FP16 --repeat 5 --profile $R/vit.json > /dev/null 2>&1
python3 $VK/profile_ops.py $R/vit.json 20
$VK/bin/vkserve inspect /tmp/vit.onnx > $R/vit_inspect.txt 2>&1
echo "== PyTorch $(date -u +%FT%TZ) SM $(clock)"
$T 60 python3 $VK/peers.py time resnet50 --batch 32 --dtype fp16 > $R/peers.jsonl 2>> $R/peers.err
$T 90 python3 $VK/peers.py time vit_b_16 --batch 32 --dtype fp16 fp32 >> $R/peers.jsonl 2>> $R/peers.err
cat $R/peers.jsonl
xz -1 $R/*.json
device_call_end
