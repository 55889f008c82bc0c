# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# What the benchmark scripts share: their command-line arguments, the GPU
# clock line and its sampling, the server's start and stop. Sourced, never
# run: a script sources it from one folder up (benchmarks/<area>/x.sh) and
# calls parse_args "$@".

# parse_args "$@": the arguments every benchmark script takes.
#   --vkserve BIN        the vkserve binary (required)
#   --out DIR            where the results go (required; created)
#   --peers PY           the peers script: `PY export NAME FILE --opset N`
#                        writes a torchvision/transformers model as ONNX,
#                        `PY time NAME --batch N... --dtype fp32 fp16` prints
#                        PyTorch eager and CUDA-graph timings as JSON Lines
#                        (not part of this repository; without it, scripts
#                        that need models or peers say so and stop or skip)
#   --load BIN           vkserve_load (default: benchmarks/vkserve_load beside
#                        the vkserve binary, as in a CMake build folder)
#   --bench BIN          vkserve_gpu_bench (default: likewise)
#   --op-cases-test BIN  runtime_op_cases_test (default: tests/ops/ beside vkserve)
#   --cases DIR          op cases from tests/ops/run_cases.sh
#   --baseline BIN       a second vkserve to compare against
#   --tinynet ONNX       the small model of the serving scripts (default: the
#                        repository's config/examples/repository/tinynet)
# Sets VKSERVE, OUT, PEERS, LOAD, BENCH, OP_CASES_TEST, CASES, BASELINE,
# TINYNET (absolute paths) and makes Python's output unbuffered. Returns 2
# after printing the usage on a missing or unknown argument.
parse_args() {
  local root
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  VKSERVE= OUT= PEERS= LOAD= BENCH= OP_CASES_TEST= CASES= BASELINE=
  TINYNET=$root/config/examples/repository/tinynet/1/model.onnx
  while [ $# -gt 0 ]; do
    case $1 in
      -h|--help) usage; return 2 ;;
    esac
    [ $# -ge 2 ] || { echo "$1 needs a value" >&2; usage; return 2; }
    case $1 in
      --vkserve) VKSERVE=$2 ;;
      --out) OUT=$2 ;;
      --peers) PEERS=$2 ;;
      --load) LOAD=$2 ;;
      --bench) BENCH=$2 ;;
      --op-cases-test) OP_CASES_TEST=$2 ;;
      --cases) CASES=$2 ;;
      --baseline) BASELINE=$2 ;;
      --tinynet) TINYNET=$2 ;;
      *) echo "unknown argument: $1" >&2; usage; return 2 ;;
    esac
    shift 2
  done
  if [ -z "$VKSERVE" ] || [ -z "$OUT" ]; then
    usage
    return 2
  fi
  mkdir -p "$OUT"
  local dir
  dir=$(cd "$(dirname "$VKSERVE")" && pwd)
  VKSERVE=$dir/$(basename "$VKSERVE")
  OUT=$(cd "$OUT" && pwd)
  LOAD=${LOAD:-$dir/benchmarks/vkserve_load}
  BENCH=${BENCH:-$dir/benchmarks/vkserve_gpu_bench}
  OP_CASES_TEST=${OP_CASES_TEST:-$dir/tests/ops/runtime_op_cases_test}
  [ -z "$PEERS" ] || PEERS=$(cd "$(dirname "$PEERS")" && pwd)/$(basename "$PEERS")
  export PYTHONUNBUFFERED=1
}

# usage: the script's own usage line (USAGE, set by the script) and the
# arguments parse_args knows.
usage() {
  echo "usage: ${USAGE:-$0 --vkserve BIN --out DIR}" >&2
  echo "  common arguments: --vkserve BIN --out DIR [--peers PY] [--load BIN] [--bench BIN]" >&2
  echo "    [--op-cases-test BIN] [--cases DIR] [--baseline BIN] [--tinynet ONNX]" >&2
}

# need_peers WHAT: stops the script when no --peers was given and WHAT
# (a sentence) needs it.
need_peers() {
  if [ -z "$PEERS" ]; then
    echo "$1 needs --peers PY (a peers script that exports and times the PyTorch models)" >&2
    exit 2
  fi
}

# tinynet_repository REPO ONNX: the two tinynet models the serving scripts
# compare, from ONNX: tinynet_pool (two sessions, each request alone) and
# tinynet_batch (the same with dynamic batching and a 256-request queue),
# batch dimension up to 8.
tinynet_repository() {
  local repo=$1 onnx=$2 name
  for name in tinynet_pool tinynet_batch; do
    mkdir -p "$repo/$name/1"
    cp "$onnx" "$repo/$name/1/model.onnx"
    printf 'max_batch_size: 8\ninstance_group { count: 2 }\n' > "$repo/$name/config.pbtxt"
  done
  echo 'dynamic_batching { default_queue_policy { max_queue_size: 256 } }' >> "$repo/tinynet_batch/config.pbtxt"
}

# clock: one line of the GPU's clocks, nvidia-smi's CSV of $CLOCK_FIELDS
# (default: current and maximum SM clock, power draw).
clock() {
  nvidia-smi --query-gpu="${CLOCK_FIELDS:-clocks.sm,clocks.max.sm,power.draw}" --format=csv,noheader
}

# sample_clocks FILE MS FORMAT FIELDS: nvidia-smi samples FIELDS every MS
# milliseconds into FILE (FORMAT: csv or csv,noheader) in the background
# until stop_clock_sampling; SMI is its pid. Being a background job, it is
# one a bare `wait` waits for, forever: wait on the PIDs of your own jobs.
sample_clocks() {
  nvidia-smi --query-gpu="$4" --format="$3" -lms "$2" > "$1" &
  SMI=$!
}
stop_clock_sampling() {
  [ -n "${SMI:-}" ] && kill "$SMI" 2>/dev/null
  SMI=
}

# describe_machine VKSERVE [NOTE]: the head of a run's environment.txt:
# the date (then NOTE), the GPU's name and driver, the cores, the first
# Vulkan devices.
describe_machine() {
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)${2:-}"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  nproc
  "$1" devices | head -8
}

# export_model NAME DEST: model NAME exported by the peers script (random
# weights, opset 17) to DEST, its log appended to $OUT/export.log; or, when
# $BIG_MODEL_ONNX is set (a dry run on a small model), that file copied
# there. With $EXPORTS set, a folder NAME.onnx is kept in and taken from,
# so that runs repeated in one device call export once. Returns 1 when the
# export fails, after printing its log.
export_model() {
  if [ -n "${BIG_MODEL_ONNX:-}" ]; then
    cp "$BIG_MODEL_ONNX" "$2"
    return
  fi
  if [ -n "${EXPORTS:-}" ] && [ -f "$EXPORTS/$1.onnx" ]; then
    cp "$EXPORTS/$1.onnx" "$2"
    return
  fi
  if python3 "$PEERS" export "$1" "$2" --opset 17 >> "$OUT/export.log" 2>&1; then
    if [ -n "${EXPORTS:-}" ]; then mkdir -p "$EXPORTS" && cp "$2" "$EXPORTS/$1.onnx"; fi
    return 0
  fi
  echo "export failed"
  cat "$OUT/export.log"
  return 1
}

# start_server VKSERVE CONFIG [TRIES]: `VKSERVE serve --config CONFIG` in
# the background, its stdout and stderr in $OUT/serve.stdout and
# $OUT/serve.log, SERVER its pid; waits up to TRIES x 0.2 s (default 600)
# for it to say "listening". Returns 1 when it never did, after printing
# the log's tail and stopping it.
start_server() {
  "$1" serve --config "$2" > "$OUT/serve.stdout" 2> "$OUT/serve.log" &
  SERVER=$!
  local i
  for i in $(seq 1 "${3:-600}"); do
    grep -q "listening" "$OUT/serve.stdout" 2>/dev/null && return 0
    sleep 0.2
  done
  grep -q "listening" "$OUT/serve.stdout" 2>/dev/null && return 0
  echo "the server did not start"
  tail -20 "$OUT/serve.log"
  kill -TERM "$SERVER"
  return 1
}

# stop_server [LOG]: SIGTERM to $SERVER and waits for it; with LOG, appends
# "server exit: STATUS" to it.
stop_server() {
  kill -TERM "$SERVER"
  wait "$SERVER"
  local status=$?
  [ -z "${1:-}" ] || echo "server exit: $status" >> "$1"
}

# scrape_metrics PORT: the server's Prometheus text from /metrics.
scrape_metrics() {
  python3 -c "import urllib.request as u; print(u.urlopen('http://127.0.0.1:$1/metrics').read().decode())"
}
