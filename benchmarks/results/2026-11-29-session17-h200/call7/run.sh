#!/bin/bash
# Session 17, device call 7: why the fp16 GEMV takes twice the fp32 one
# (call 6): the dispatches of one FP16 and one FP32 run of gemv_4096 and
# gpt2_decode_qkv (B a weight), with their shaders and GPU times.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s17
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
T="timeout -k 5"
python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve 'gemv_4096|gpt2_decode_qkv' --weights --out /tmp/gb --repeat 3 > /dev/null 2>&1
for m in gemv_4096 gpt2_decode_qkv; do
  for p in FP32 FP16; do
    echo "== $m $p"
    $T 30 $VK/bin/vkserve infer /tmp/gb/$m.onnx --precision $p --repeat 50 --warmup 0.5 --profile /tmp/$m.$p.json 2>&1 | grep timing
    $T 20 $VK/bin/vkserve inspect /tmp/gb/$m.onnx --precision $p 2>&1 | grep -iE "kernel|gemv|cast" | head -6
    python3 - /tmp/$m.$p.json <<'PY'
import json, sys, collections
ev = [e for e in json.load(open(sys.argv[1])) if e.get("cat") == "gpu"]
agg = collections.defaultdict(list)
for e in ev: agg[(e["name"], e["args"].get("op_type"), e["args"].get("shader", ""))].append(e["dur"])
for k, v in agg.items(): print(f"  {k}: n={len(v)} median_us={sorted(v)[len(v)//2]:.1f}")
PY
  done
done 2>&1 | tee $R/dispatches.txt
