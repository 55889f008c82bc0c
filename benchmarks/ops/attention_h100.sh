#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# One device run for fused attention (issue 14) on the H100: the SM clock
# before and after; the attention op cases (fused kernel, exporter patterns,
# contrib ops, both pinned kernels of attention_pick) on the device;
# attention_bench.py at FP32 and FP16 (the Attention op with the kernel
# runtime/ops/attention_choice.h picks, beside it pinned to the fused kernel
# and to the GEMM lowering, and the MatMul/Softmax/MatMul graph unfused,
# s128/s512/s2048, 12 heads of 64); and torch's scaled_dot_product_attention
# on the same shapes (attention_bench.py --peers) in the same call.
#
# Usage (on the GPU machine): benchmarks/ops/attention_h100.sh BUNDLE_DIR CASES_DIR
#   BUNDLE_DIR from shared/device/bundle with vkserve and runtime_op_cases_test;
#   CASES_DIR from tests/ops/run_cases.sh (gen_cases.py + ort_batch.js).
set -uo pipefail
bundle=${1:?usage: attention_h100.sh BUNDLE CASES}
cases=${2:?usage: attention_h100.sh BUNDLE CASES}
scripts=$(cd "$(dirname "$0")" && pwd)
source "$scripts/../device_common.sh"  # device_env, clock
device_env "$bundle/env.sh"
echo "== date $(date -u +%FT%TZ)  SM clock before: $(clock)"
echo "== op cases (attention)"
VKSERVE_OP_CASES_DIR=$cases timeout 180 "$bundle/bin/runtime_op_cases_test" \
  --gtest_filter='*flash_attention*:*i13_attention*:*attention_*:*mha_*' 2>&1 |
  grep -E "FAILED|PASSED|Failure|error" | tail -20
echo "== attention_bench FP32"
python3 "$scripts/attention_bench.py" "$bundle/bin/vkserve" --warmup 0.5 --repeat 20
echo "== attention_bench FP16"
python3 "$scripts/attention_bench.py" "$bundle/bin/vkserve" --precision FP16 --warmup 0.5 --repeat 20 \
  --kinds chosen,coopmat,fused,unfused,graph
echo "== torch scaled_dot_product_attention"
python3 "$scripts/attention_bench.py" --peers
echo "== SM clock after: $(clock)"
