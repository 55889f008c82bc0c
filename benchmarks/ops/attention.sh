#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Fused attention in one run: the SM clock before and after; the attention
# op cases (fused kernel, exporter patterns, contrib ops, both pinned kernels
# of attention_pick); attention_bench.py at FP32 and FP16 (the Attention op
# with the kernel runtime/kernels/attention/attention_choice.h picks, beside it pinned to
# the fused kernel and to the GEMM lowering, and the MatMul/Softmax/MatMul
# graph unfused, s128/s197/s512/s2048, 12 heads of 64; at FP16 the
# tensor-core variants pinned, with the softmax through shared memory and in
# registers, each checked against the fused FP32 kernel); and torch's
# scaled_dot_product_attention on the same shapes (attention_bench.py
# --peers). CASES is tests/ops/run_cases.sh's output (gen_cases.py +
# ort_batch.js). Everything printed also goes to OUT/attention.log.
set -uo pipefail
USAGE="benchmarks/ops/attention.sh --vkserve BIN --out DIR --cases DIR [--op-cases-test BIN]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
[ -n "$CASES" ] || { echo "--cases DIR is required" >&2; usage; exit 2; }
exec > >(tee "$OUT/attention.log") 2>&1
echo "== date $(date -u +%FT%TZ)  SM clock before: $(clock)"
echo "== op cases (attention)"
VKSERVE_OP_CASES_DIR=$CASES timeout 180 "$OP_CASES_TEST" \
  --gtest_filter='*flash_attention*:*attention_*:*mha_*' 2>&1 |
  grep -E "FAILED|PASSED|Failure|error" | tail -20
echo "== attention_bench FP32"
python3 "$B/attention_bench.py" "$VKSERVE" --warmup 0.5 --repeat 20
echo "== attention_bench FP16"
TILES="coopmat:4x64:shared,coopmat:2x64:shared,coopmat:4x64:registers,coopmat:2x64:registers"
TILES="$TILES,coopmat:2x32:registers,coopmat:4x32x32:registers,coopmat:2x64x32:registers"
TILES="$TILES,coopmat:2x32x32:registers"
python3 "$B/attention_bench.py" "$VKSERVE" --precision FP16 --warmup 0.5 --repeat 20 \
  --kinds "chosen,$TILES,unfused" --check
echo "== torch scaled_dot_product_attention"
python3 "$B/attention_bench.py" --peers
echo "== SM clock after: $(clock)"
