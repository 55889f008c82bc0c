#!/usr/bin/env bash
# Builds vkserve under a sanitizer and runs the tests that exercise it (on
# lavapipe with the Khronos validation layer, like scripts/test.sh):
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/, clang):
#         every unit, runtime, server and config test and the fuzz corpus
#         replays, plus a sample of the op cases (a third of some families;
#         the whole suite runs in test.sh). The tree is also the libFuzzer
#         one (-DVKSERVE_FUZZ=ON): tests/fuzz/run_fuzzers.sh SECONDS build-asan
#         fuzzes without a build of its own.
#   tsan  ThreadSanitizer (build-tsan/): every server test (label `server`;
#         tests/base checks the TSan support itself; gpu_parallel_copy_test
#         the readback threads every served model shares),
#         i.e. the server's concurrency on its many threads: the session
#         pool, the dynamic batcher, metrics, the control worker,
#         authorization, request decoding, and the daemon end to end over
#         gRPC (every RPC, streams, 64 concurrent clients, loads and unloads
#         under traffic, TLS, hardening, faults, the watchdog, SIGTERM with
#         requests in flight; the Python-driven tests run a TSan `vkserve`).
#         Debian's libabsl and libgrpc are not instrumented: vkserve's own
#         locks are vkserve::Mutex (base/mutex.h), a std::mutex twin under
#         TSan; the TSan executables wrap absl::Mutex so that gRPC's locking
#         is seen (base/tsan/absl_sync.cc); and the reactors mark the
#         orderings gRPC keeps with atomics (base/happens_before.h).
#         scripts/sanitizer/tsan.supp lists the third-party reports that are
#         suppressed, each with its reason.
# Any sanitizer report fails the run. Usage: scripts/sanitize.sh asan|tsan
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
kind=${1:?usage: scripts/sanitize.sh asan|tsan}
SRC=$(pwd)
# Debug info names the build directory; let ccache share objects across
# checkouts anyway (CI builds a fresh clone).
export CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(dirname "$SRC")}
# -O1 and line tables only: what a sanitizer report needs (symbolized frames
# with lines), at about half the compile time of -O2 -g (server/daemon/server.cc
# under ASan + UBSan with GCC: 99 s at -O2 -g, 57 s at -O1 -g1; clang -O1
# -gline-tables-only 45 s). CI builds three trees cold (ASan and fuzzing, TSan, Release).
case "$kind" in
  asan)
    dir=build-asan
    # A tree from before the switch to clang cannot change compilers.
    if [ -f "$dir/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang' "$dir/CMakeCache.txt"; then
      rm -rf "$dir"
    fi
    CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" -DVKSERVE_SANITIZE=ON \
      -DVKSERVE_FUZZ=ON -DVKSERVE_BUILD_BENCHMARKS=OFF >/dev/null
    # Leaks inside the uninstrumented Vulkan driver and layer are theirs.
    export LSAN_OPTIONS="suppressions=$SRC/scripts/sanitizer/lsan.supp:print_suppressions=0"
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    # The package is built and checked from the Release build (scripts/test.sh).
    exclude='runtime_op_cases$|deploy_package_test$'
    # Samples of the longest suites (all of them run in test.sh's Release
    # build): runtime_model_test each model in one form, sequence_length each
    # model at one precision, the ONNX conformance suite every other case.
    export VKSERVE_MODEL_SAMPLE=1
    ;;
  tsan)
    dir=build-tsan
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DVKSERVE_SANITIZE_THREAD=ON \
      -DVKSERVE_BUILD_BENCHMARKS=OFF >/dev/null
    # ignore_noninstrumented_modules: an interceptor (memcpy, free, ...)
    # called from Debian's uninstrumented libraries (gRPC, absl, the Vulkan
    # driver) reports nothing. Their own synchronization is invisible to TSan,
    # so such reports were hand-offs inside them (CI failed twice on
    # them with ModelInfer on completion queues: a status message appended by
    # gRPC core, a block freed by it); vkserve's own accesses stay checked.
    export TSAN_OPTIONS="suppressions=$SRC/scripts/sanitizer/tsan.supp:halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1"
    # Every server test: the googletest binaries, and the daemon itself for
    # the tests that drive `vkserve serve` from Python clients.
    targets="vkserve base_sync_test base_parallel_for_test gpu_parallel_copy_test server_session_pool_test server_dynamic_batcher_test server_metrics_test
      server_output_buffer_pool_test
      server_control_worker_test server_authorization_test server_model_tensors_test
      server_runtime_settings_test server_metrics_endpoint_test server_grpc_test
      server_hardening_test server_fault_test server_watchdog_test server_multi_gpu_test
      server_multi_gpu_server_test server_warmup_test server_warmup_runs_test server_infer_queues_test server_batch_pacing_test
      server_output_files_test server_http_server_test server_request_queue_test
      server_gpu_settings_test"
    ;;
  *) echo "usage: scripts/sanitize.sh asan|tsan" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086  # word splitting of the target list is meant
cmake --build "$dir" -j"$(nproc)" ${targets:+--target $targets}
if [ "$kind" = asan ]; then
  # A sample of the op cases: a third of the contrib rewrites' and of one
  # family of each kernel's (444 cases took 15 minutes here; all of them run
  # in test.sh's Release build).
  # Two googletest shards side by side: most of the sample's time on a clean
  # machine is lavapipe compiling each pipeline (Mesa's shader cache is cold;
  # 359 s in one process here, 25 s with the cache warm).
  VKSERVE_CASE_SHARDS=2 VKSERVE_CASE_SAMPLE=3 tests/ops/run_cases.sh "$dir" \
    '^(contrib|attention|mha|embed_ln|fusedmatmul|conv_fused|layernorm_.*_17|gemm_)'
fi
if [ "$kind" = tsan ]; then
  ctest --test-dir "$dir" --output-on-failure -j"${TEST_JOBS:-$(nproc)}" -L '^server$'
else
  ctest --test-dir "$dir" --output-on-failure -j"${TEST_JOBS:-$(nproc)}" -E "$exclude"
fi
