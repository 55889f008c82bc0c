#!/bin/bash
# Session 11, device call 1: the tensor-core flash attention (issue 14).
# Its op cases on real tensor cores (every attention case, coopmat pinned
# and chosen), attention_bench at FP16 with every kernel pinned beside the
# choice, torch SDPA, and BERT-base / GPT-2 at FP16 beside PyTorch fp16,
# with a b8 profile of each.
set -uo pipefail
source benchmarks/device_common.sh
device_unpack_bundle .bundle-c1
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
VKSERVE_OP_CASES_DIR=$VK/cases timeout 150 $VK/bin/runtime_op_cases_test > $OUT/op_cases.log 2>&1
echo "op cases rc=$?: $(grep -c '^\[       OK' $OUT/op_cases.log) OK, $(grep -c '^\[  FAILED  \]' $OUT/op_cases.log) failed, $(grep -c '^\[  SKIPPED' $OUT/op_cases.log) skipped"
grep -E "^\[  FAILED|Failure" $OUT/op_cases.log | head -20
echo "== attention FP16 $(date -u +%FT%TZ) SM $(clock)"
timeout 150 python3 benchmarks/ops/attention_bench.py $VK/bin/vkserve --precision FP16 \
  --kinds chosen,coopmat,fused,unfused --warmup 0.5 --repeat 20 2>&1 | tee $OUT/attention_fp16.txt
echo "== torch SDPA SM $(clock)"
timeout 60 python3 benchmarks/ops/attention_bench.py --peers 2>&1 | tee $OUT/attention_peers.txt
echo "== models FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$OUT/tf16 DTYPES=fp16 VKSERVE_FLAGS="--precision FP16" MODELS="bert-base gpt2" BATCHES="1 8" \
  timeout 240 bash $VK/run_on_device.sh > $OUT/tf16.log 2>&1
tail -8 $OUT/tf16/models.md
for m in bert-base gpt2; do
  $VK/bin/vkserve infer /tmp/models/$m.onnx --dim N=8 --repeat 5 --warmup 1 --precision FP16 \
    --profile $OUT/tf16/profile_${m}_b8.json --pipeline-cache /tmp/pc.bin > /dev/null 2>&1
done
echo "== SM clock at end: $(clock)"
stop_clock_sampling
