#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The short form of gemm.sh (about 2-3 minutes): SM clock before and after;
# the tensor-core op cases (every coopmat tile; fp16 weights); FP16 on the
# square, BERT b8 FFN and GEMV shapes with B as an input and as an fp16
# weight, and as a model stored in float16; each tensor-core tile pinned at
# 4096^3 and 2048^3 (and 4096^3 in float16); FP32 GEMV with B a weight;
# cuBLAS on the same shapes (gemm_peers.py, PyTorch). Everything printed also
# goes to OUT/gemm_quick.log, the op cases' output to OUT/op_cases.log.
set -uo pipefail
USAGE="benchmarks/ops/gemm_quick.sh --vkserve BIN --out DIR --cases DIR [--op-cases-test BIN]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
[ -n "$CASES" ] || { echo "--cases DIR is required" >&2; usage; exit 2; }
exec > >(tee "$OUT/gemm_quick.log") 2>&1
bench() { python3 "$B/gemm_bench.py" "$VKSERVE" "$@"; }
echo "== date $(date -u +%FT%TZ)  SM clock before: $(clock)"
"$VKSERVE" devices 2>&1 | grep -E "\[|matrix|subgroup"
echo "== op cases (FP16, float16 models, tensor cores, fp16 weights)"
# One process per tile family, each with its own limit, so a case that hangs
# on real tensor cores names its family and the others still run; every
# test line goes to the log as it happens.
: > "$OUT/op_cases.log"
for family in cm128x128_ cm128x128w4_ cm128x256_ cm256x128_ cm64x64_ cm64x64s1_ cm_auto; do
  echo "-- family $family" >> "$OUT/op_cases.log"
  VKSERVE_OP_CASES_DIR=$CASES timeout 45 "$OP_CASES_TEST" \
    --gtest_filter="*gemm_fp16_$family*:*gemm_f16io_$family*" >> "$OUT/op_cases.log" 2>&1
  echo "family $family rc=$?" | tee -a "$OUT/op_cases.log"
done
echo "-- the rest (auto-chosen tiles)" >> "$OUT/op_cases.log"
VKSERVE_OP_CASES_DIR=$CASES timeout 60 "$OP_CASES_TEST" \
  --gtest_filter='*gemm_fp16*:*gemm_f16io*:-*_cm*' >> "$OUT/op_cases.log" 2>&1
echo "rest rc=$?"
echo "op cases: $(grep -c '^\[       OK' "$OUT/op_cases.log") OK," \
  "$(grep -c '^\[  FAILED  \]' "$OUT/op_cases.log") failed, $(grep -c '^\[  SKIPPED' "$OUT/op_cases.log") skipped"
grep -E "^\[  FAILED|Failure|error" "$OUT/op_cases.log" | head -30
grep -B1 "rc=124" "$OUT/op_cases.log" | head
echo "-- slowest cases:"
grep -E "^\[       OK" "$OUT/op_cases.log" | sed -E 's/.*\/([^ ]+) \(([0-9]+) ms\)/\2 \1/' | sort -rn | head -8
echo "-- last lines:"; tail -3 "$OUT/op_cases.log"
shapes='square_|bert_b8_ffn|gemv_4096'
echo "== gemm_bench FP16 (B an input)"
bench "$shapes" --precision FP16 --warmup 1 --repeat 20
echo "== gemm_bench FP16 (B an fp16 weight)"
bench "$shapes" --precision FP16 --weights --warmup 0.3 --repeat 20
echo "== gemm_bench, a model stored in float16 (fp16 A, B, Y: cuBLAS fp16's bytes)"
bench "$shapes" --float16 --warmup 0.3 --repeat 20
echo "== gemm_bench FP32 (B a weight)"
bench 'gemv_4096|square_4096' --weights --warmup 0.3 --repeat 20
echo "== SM clock after vkserve: $(clock)"
echo "== cuBLAS peers (PyTorch $(python3 -c 'import torch; print(torch.__version__)'))"
python3 "$B/gemm_peers.py" "$shapes"
echo "== tensor-core tiles pinned"
for tile in 128x128 128x128w4 128x256 256x128 64x64 64x64s1; do
  echo "-- cm$tile"
  bench 'square_(2048|4096)$' --precision FP16 --plan "cm$tile" --warmup 0.2 --repeat 20 --statistics | tail -n +2
  bench 'square_4096$' --float16 --plan "cm$tile" --warmup 0.2 --repeat 20 | tail -n +2 |
    sed 's/^square_4096 /square_4096_f16/'
done
echo "== SM clock after: $(clock)"
