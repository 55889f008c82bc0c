#!/bin/bash
# Session 10, device call 8: every FP16 / float16 GEMM op case (every
# tensor-core tile family, real tensor cores) on the session's final
# engine (raw fp16 loads, wave cost model), one process per family.
set -uo pipefail
source benchmarks/device_common.sh
mkdir -p /tmp/vk; xz -dc .bundle-c8/bundle.tar.xz | tar xf - -C /tmp/vk; VK=/tmp/vk/.bundle-s10
device_env $VK/env.sh
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
: > $OUT/op_cases.log
for family in cm128x128_ cm128x128w4_ cm128x256_ cm256x128_ cm64x64_ cm64x64s1_ cm_auto; do
  echo "-- family $family" >> $OUT/op_cases.log
  VKSERVE_OP_CASES_DIR=$VK/cases timeout 90 $VK/bin/runtime_op_cases_test \
    --gtest_filter="*gemm_fp16_$family*:*gemm_f16io_$family*:*gemm_fp16_w_$family*" >> $OUT/op_cases.log 2>&1
  echo "family $family rc=$?" | tee -a $OUT/op_cases.log
done
VKSERVE_OP_CASES_DIR=$VK/cases timeout 90 $VK/bin/runtime_op_cases_test \
  --gtest_filter='*gemm_fp16*:*gemm_f16io*:-*_cm*' >> $OUT/op_cases.log 2>&1
echo "rest rc=$?"
echo "op cases: $(grep -c '^\[       OK' $OUT/op_cases.log) OK, $(grep -c '^\[  FAILED  \]' $OUT/op_cases.log) failed, $(grep -c '^\[  SKIPPED' $OUT/op_cases.log) skipped"
grep -E "^\[  FAILED|Failure" $OUT/op_cases.log | head -20
