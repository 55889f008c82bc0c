#!/bin/bash
# Session 12, device call 1 (the session's only call: 373 s of device time).
# FP16 precision now keeps activations in fp16 (runtime/fp16_activations.h).
#  1. The FP16 / float16 op cases on real tensor cores (GEMM engine, float16
#     LayerNorm, tensor-core attention).
#  2. BERT-base and GPT-2 b1/b8 at FP16 beside PyTorch (eager fp32, CUDA
#     graph fp32 and fp16), and resnet50 b32 at FP16 beside PyTorch.
#  3. FP16 vs FP32 accuracy (--compare) for BERT-base and GPT-2 at b8.
#  4. gRPC overhead at 1 client on tinynet with the floor at the requests'
#     cadence (vkserve_load's new FloorAtCadence).
set -uo pipefail
source benchmarks/device_common.sh
device_unpack_bundle .bundle-c1
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
VKSERVE_OP_CASES_DIR=$VK/cases timeout 70 $VK/bin/runtime_op_cases_test > $OUT/op_cases.log 2>&1
echo "op cases rc=$?: $(grep -c '^\[       OK' $OUT/op_cases.log) OK, $(grep -c '^\[  FAILED  \]' $OUT/op_cases.log) failed, $(grep -c '^\[  SKIPPED' $OUT/op_cases.log) skipped"
grep -E "^\[  FAILED|Failure" $OUT/op_cases.log | head -20
echo "== models FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$OUT/tf16 VKSERVE_FLAGS="--precision FP16" MODELS="bert-base gpt2" BATCHES="1 8" \
  timeout 150 bash $VK/run_on_device.sh > $OUT/tf16.log 2>&1
tail -5 $OUT/tf16/models.md
echo "== resnet50 FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$OUT/rn16 VKSERVE_FLAGS="--precision FP16" MODELS="resnet50" BATCHES="32" \
  timeout 80 bash $VK/run_on_device.sh > $OUT/rn16.log 2>&1
tail -3 $OUT/rn16/models.md
echo "== FP16 vs FP32 $(date -u +%FT%TZ) SM $(clock)"
for m in bert-base gpt2; do
  [ -f /tmp/models/$m.onnx ] && timeout 25 $VK/bin/vkserve infer /tmp/models/$m.onnx --dim N=8 \
    --precision FP16 --compare 2>&1 | grep -E "compare|timing" | sed "s/^/$m b8: /"
done | tee $OUT/compare.txt
echo "== tinynet overhead $(date -u +%FT%TZ) SM $(clock)"
OUT=$OUT/overhead CLIENTS="1" REPEATS=2 SECONDS_PER_RUN=4 MODELS="tinynet_pool" \
  timeout 50 bash $VK/run_overhead_on_device.sh > $OUT/overhead.log 2>&1
head -8 $OUT/overhead/overhead.md
rm -f $OUT/tf16/profile_* $OUT/rn16/profile_* $OUT/*/summarize.err $OUT/*/export.log $OUT/overhead/pc.bin
echo "== SM clock at end: $(clock)"
stop_clock_sampling
