#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# One device run for the GEMM engine (issue 11) on the H100: the SM clock
# before and after; `vkserve devices` (the cooperative-matrix shapes); the
# GEMM engine's op cases including the tensor-core ones that CI skips;
# gemm_bench.py and conv_bench.py at FP32 for this build and for a baseline
# build (main before the engine) and at FP16; a sweep of every tensor-core
# tile pinned on the square, BERT b8 and attention shapes (to calibrate the
# coopmat speeds in runtime/ops/gemm_plan.cc); and the cuBLAS peers of the
# same shapes (gemm_peers.py) in the same call.
#
# Usage (on the GPU machine): benchmarks/ops/gemm_h100.sh BUNDLE_DIR CASES_DIR [BASELINE_VKSERVE]
#   BUNDLE_DIR from shared/device/bundle with vkserve and runtime_op_cases_test;
#   CASES_DIR from tests/ops/run_cases.sh (gen_cases.py + ort_batch.js).
set -uo pipefail
bundle=${1:?usage: gemm_h100.sh BUNDLE CASES [BASELINE]}
cases=${2:?usage: gemm_h100.sh BUNDLE CASES [BASELINE]}
baseline=${3:-}
scripts=$(cd "$(dirname "$0")" && pwd)  # (env.sh sets $here)
source "$scripts/../device_common.sh"  # device_env, clock
device_env "$bundle/env.sh"
echo "== date $(date -u +%FT%TZ)  SM clock before: $(clock)"
"$bundle/bin/vkserve" devices 2>&1 | grep -E "\[|matrix|subgroup"
echo "== op cases (GEMM engine, FP16, tensor cores)"
VKSERVE_OP_CASES_DIR=$cases timeout 300 "$bundle/bin/runtime_op_cases_test" \
  --gtest_filter='*gemm_fp16*:*gemm_f16io*:*gemm_engine_mm*:*gemm_engine_conv*:*gemm_engine_gemv*' 2>&1 |
  grep -E "OK|FAILED|SKIPPED|PASSED|Failure|error" | grep -v "^\[       OK" | tail -40
echo "== gemm_bench FP32 (this build)"
python3 "$scripts/gemm_bench.py" "$bundle/bin/vkserve" --warmup 0.5 --repeat 20
if [ -n "$baseline" ]; then
  echo "== gemm_bench FP32 (baseline)"
  python3 "$scripts/gemm_bench.py" "$baseline" --warmup 0.5 --repeat 20
fi
echo "== gemm_bench FP16 (this build)"
python3 "$scripts/gemm_bench.py" "$bundle/bin/vkserve" --precision FP16 --warmup 0.5 --repeat 20
echo "== gemm_bench FP16, B a weight initializer (stored in fp16)"
python3 "$scripts/gemm_bench.py" "$bundle/bin/vkserve" --precision FP16 --weights --warmup 0.5 --repeat 20
echo "== gemm_bench FP32, B a weight initializer"
python3 "$scripts/gemm_bench.py" "$bundle/bin/vkserve" 'gemv|gpt2|head' --weights --warmup 0.5 --repeat 20
echo "== gemm_bench, models stored in float16 (tensor cores at FP32 precision)"
python3 "$scripts/gemm_bench.py" "$bundle/bin/vkserve" --float16 --warmup 0.5 --repeat 20
echo "== FP16 tensor-core tile sweep (pinned plans)"
for tile in 128x128 128x128w4 128x256 256x128 64x64 64x64s1; do
  echo "-- cm$tile"
  python3 "$scripts/gemm_bench.py" "$bundle/bin/vkserve" 'square_|bert_b8|attn_b8' \
    --precision FP16 --plan "cm$tile" --warmup 0.3 --repeat 20
done
echo "== conv_bench FP32 (this build)"
python3 "$scripts/conv_bench.py" "$bundle/bin/vkserve" --warmup 0.5
if [ -n "$baseline" ]; then
  echo "== conv_bench FP32 (baseline)"
  python3 "$scripts/conv_bench.py" "$baseline" --warmup 0.5
fi
echo "== conv_bench FP16 (this build)"
python3 "$scripts/conv_bench.py" "$bundle/bin/vkserve" --precision FP16 --warmup 0.5
echo "== cuBLAS peers (PyTorch $(python3 -c 'import torch; print(torch.__version__)'))"
python3 "$scripts/gemm_peers.py"
echo "== SM clock after: $(clock)"
