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
# Usage: tests/fuzz/run_fuzzers.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-60}
BUILD=build-fuzz
CC=clang CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DVKSERVE_BUILD_BENCHMARKS=OFF -DVKSERVE_FUZZ=ON >/dev/null
TARGETS="ort_loader_fuzzer onnx_loader_fuzzer config_fuzzer infer_request_fuzzer http_request_head_fuzzer"
cmake --build "$BUILD" -j"$(nproc)" --target $TARGETS
# The request fuzzer opens a GPU (lavapipe): its driver's lifetime
# allocations are not vkserve's leaks.
export LSAN_OPTIONS="suppressions=$PWD/scripts/sanitizer/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
for target in $TARGETS; do
  corpus=${target%_fuzzer}
  mkdir -p "$BUILD/corpus/$corpus"
  "$BUILD/tests/fuzz/$target" -max_total_time="$SECONDS_EACH" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$BUILD/" "$BUILD/corpus/$corpus" "tests/fuzz/corpus/$corpus"
done
