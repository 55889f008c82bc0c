#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The op case pipeline: writes the cases of tests/ops/cases/*_cases.py into
# BUILD_DIR/op_cases (gen_cases.py), their onnxruntime reference outputs
# (tests/reference/ort_batch.js), then runs BUILD_DIR's runtime_op_cases_test
# on them with the Khronos validation layer on. CTest runs it as
# `runtime_op_cases`.
#
# Usage: tests/ops/run_cases.sh BUILD_DIR [NAME_REGEX] [googletest args...]
#   NAME_REGEX selects cases by name (Python re.search); "" for all.
# Environment: VKSERVE_PYTHON (default /usr/bin/python3, which has Debian's
# python3-onnx and python3-numpy), NODE (default node), VKSERVE_CASE_SHARDS=N
# (N googletest shards side by side), VKSERVE_CASE_SAMPLE=N
# (every Nth selected case of each case module; default 1, all).
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [NAME_REGEX] [googletest args...]" >&2
  exit 2
fi
BUILD_DIR=$(cd "$1" && pwd)
FILTER=${2:-}
shift $(( $# >= 2 ? 2 : 1 ))
SRC=$(cd "$(dirname "$0")/../.." && pwd)
OUT="$BUILD_DIR/op_cases"
PYTHON=${VKSERVE_PYTHON:-/usr/bin/python3}
NODE=${NODE:-node}
TEST_BIN="$BUILD_DIR/tests/ops/runtime_op_cases_test"

if [ ! -x "$TEST_BIN" ]; then
  echo "run_cases: $TEST_BIN is not built" >&2
  exit 2
fi

"$PYTHON" "$SRC/tests/ops/gen_cases.py" "$OUT" ${FILTER:+--filter "$FILTER"} \
  --sample "${VKSERVE_CASE_SAMPLE:-1}"

# 1 means some cases have no reference (expected/error.txt): the C++ test
# fails those with onnxruntime's message. Anything else is a broken setup.
rc=0
"$NODE" "$SRC/tests/reference/ort_batch.js" "$OUT" || rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
  echo "run_cases: ort_batch.js failed ($rc)" >&2
  exit "$rc"
fi

export VKSERVE_VALIDATION=1
export VKSERVE_OP_CASES_DIR="$OUT"
shards=${VKSERVE_CASE_SHARDS:-1}
if [ "$shards" -le 1 ]; then
  exec "$TEST_BIN" "$@"
fi
# googletest's own sharding, the shards side by side, each into its own log
# (printed in order once all have ended).
pids=()
for ((i = 0; i < shards; ++i)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$TEST_BIN" "$@" > "$OUT/shard_$i.log" 2>&1 &
  pids+=($!)
done
rc=0
for ((i = 0; i < shards; ++i)); do
  wait "${pids[$i]}" || rc=1
  cat "$OUT/shard_$i.log"
done
exit "$rc"
