#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Builds the libFuzzer targets with clang (AddressSanitizer + UBSan +
# libFuzzer) into build-fuzz/ and fuzzes each for SECONDS (default 60),
# starting from its seed corpus in tests/fuzz/corpus/<target>/. New inputs
# go to build-fuzz/corpus/<target>/; a crash leaves its input in
# build-fuzz/ and fails the script.
#
# A second argument names another clang tree configured with -DVKSERVE_FUZZ=ON
# to build them in instead: scripts/sanitize.sh asan's build-asan/, as
# .ci/run does, so that CI builds one tree for both.
#
# Usage: tests/fuzz/run_fuzzers.sh [SECONDS] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-60}
BUILD=${2:-build-fuzz}
if [ -z "${2:-}" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
    -DVKSERVE_BUILD_BENCHMARKS=OFF -DVKSERVE_FUZZ=ON >/dev/null
elif ! grep -q '^VKSERVE_FUZZ:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then
  echo "run_fuzzers.sh: $BUILD is not a tree configured with -DVKSERVE_FUZZ=ON" >&2
  exit 2
fi
TARGETS="ort_loader_fuzzer onnx_loader_fuzzer config_fuzzer infer_request_fuzzer
  http_infer_request_fuzzer"
cmake --build "$BUILD" -j"$(nproc)" --target $TARGETS
# The request fuzzer opens a GPU (lavapipe): its driver's lifetime
# allocations are not vkserve's leaks.
export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizer/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# One target per core at a time (each libFuzzer process is single-threaded),
# each logging to $BUILD/<target>.log; a failing target's log is printed.
fuzz_one() {
  local target=$1 corpus=${1%_fuzzer}
  mkdir -p "$BUILD/corpus/$corpus"
  if "$BUILD/tests/fuzz/$target" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$BUILD/" "$BUILD/corpus/$corpus" "tests/fuzz/corpus/$corpus" \
      >"$BUILD/$target.log" 2>&1; then
    echo "run_fuzzers.sh: $target: $(grep -E '^Done|#[0-9]+.*DONE' "$BUILD/$target.log" | tail -1)"
  else
    echo "run_fuzzers.sh: $target FAILED; its log:" >&2
    cat "$BUILD/$target.log" >&2
    return 1
  fi
}
failed=0
running=0
for target in $TARGETS; do
  if [ "$running" -ge "$(nproc)" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
exit "$failed"
