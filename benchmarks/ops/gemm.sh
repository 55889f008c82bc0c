#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The GEMM engine in one run: the SM clock before and after; `vkserve
# devices` (the cooperative-matrix shapes); the GEMM engine's op cases,
# including the tensor-core ones that lavapipe skips; gemm_bench.py and
# conv_bench.py at FP32 for this build and for a baseline build (--baseline)
# and at FP16; a sweep of every tensor-core tile pinned on the square, BERT
# b8 and attention shapes (to calibrate the coopmat speeds in
# runtime/kernels/gemm/gemm_plan.cc); and the cuBLAS peers of the same shapes
# (gemm_peers.py, PyTorch). CASES is tests/ops/run_cases.sh's output.
# Everything printed also goes to OUT/gemm.log.
set -uo pipefail
USAGE="benchmarks/ops/gemm.sh --vkserve BIN --out DIR --cases DIR [--op-cases-test BIN] [--baseline BIN]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
[ -n "$CASES" ] || { echo "--cases DIR is required" >&2; usage; exit 2; }
exec > >(tee "$OUT/gemm.log") 2>&1
echo "== date $(date -u +%FT%TZ)  SM clock before: $(clock)"
"$VKSERVE" devices 2>&1 | grep -E "\[|matrix|subgroup"
echo "== op cases (GEMM engine, FP16, tensor cores)"
VKSERVE_OP_CASES_DIR=$CASES timeout 300 "$OP_CASES_TEST" \
  --gtest_filter='*gemm_fp16*:*gemm_f16io*:*gemm_engine_mm*:*gemm_engine_conv*:*gemm_engine_gemv*' 2>&1 |
  grep -E "OK|FAILED|SKIPPED|PASSED|Failure|error" | grep -v "^\[       OK" | tail -40
echo "== gemm_bench FP32 (this build)"
python3 "$B/gemm_bench.py" "$VKSERVE" --warmup 0.5 --repeat 20
if [ -n "$BASELINE" ]; then
  echo "== gemm_bench FP32 (baseline)"
  python3 "$B/gemm_bench.py" "$BASELINE" --warmup 0.5 --repeat 20
fi
echo "== gemm_bench FP16 (this build)"
python3 "$B/gemm_bench.py" "$VKSERVE" --precision FP16 --warmup 0.5 --repeat 20
echo "== gemm_bench FP16, B a weight initializer (stored in fp16)"
python3 "$B/gemm_bench.py" "$VKSERVE" --precision FP16 --weights --warmup 0.5 --repeat 20
echo "== gemm_bench FP32, B a weight initializer"
python3 "$B/gemm_bench.py" "$VKSERVE" 'gemv|gpt2|head' --weights --warmup 0.5 --repeat 20
echo "== gemm_bench, models stored in float16 (tensor cores at FP32 precision)"
python3 "$B/gemm_bench.py" "$VKSERVE" --float16 --warmup 0.5 --repeat 20
echo "== FP16 tensor-core tile sweep (pinned plans)"
for tile in 128x128 128x128w4 128x256 256x128 64x64 64x64s1; do
  echo "-- cm$tile"
  python3 "$B/gemm_bench.py" "$VKSERVE" 'square_|bert_b8|attn_b8' \
    --precision FP16 --plan "cm$tile" --warmup 0.3 --repeat 20
done
echo "== conv_bench FP32 (this build)"
python3 "$B/conv_bench.py" "$VKSERVE" --warmup 0.5
if [ -n "$BASELINE" ]; then
  echo "== conv_bench FP32 (baseline)"
  python3 "$B/conv_bench.py" "$BASELINE" --warmup 0.5
fi
echo "== conv_bench FP16 (this build)"
python3 "$B/conv_bench.py" "$VKSERVE" --precision FP16 --warmup 0.5
echo "== cuBLAS peers (PyTorch $(python3 -c 'import torch; print(torch.__version__)'))"
python3 "$B/gemm_peers.py"
echo "== SM clock after: $(clock)"
