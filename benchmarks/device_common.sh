# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# What the device scripts share (models/, ort/, gpu/run_on_device.sh,
# server/run_*on_device.sh, server/idle_probe_on_device.sh, ops/*_h100*.sh,
# and each device call's run.sh under results/):
# the bundle's environment, the GPU clock line and its sampling, and the
# server's start and stop. Sourced, never run; it defines functions and sets
# nothing until they are called. A script finds it beside itself (copied
# into a bundle), one folder up (benchmarks/<area>/ in the repository), or
# in the repository beside the bundle (.bundle-*/ in its root, which the
# device call carries with the working tree):
#   B=$(cd "$(dirname "$0")" && pwd)
#   for d in "$B" "$B/.." "$B/../benchmarks"; do [ -f "$d/device_common.sh" ] && break; done
#   source "$d/device_common.sh" || exit 1

# device_env ENV_SH: sources the bundle's env.sh (its libraries, the NVIDIA
# Vulkan driver; a dry run here may have none), then makes Python
# unbuffered so logs follow the run. When the bundle's vkserve finds no
# Vulkan device that way (one device machine kept its driver manifest
# elsewhere), it looks for nvidia_icd*.json on the machine and uses it.
device_env() {
  if [ -f "$1" ]; then
    # shellcheck disable=SC1090
    source "$1"
  else
    echo "device_env: no $1; using this machine's libraries" >&2
  fi
  export PYTHONUNBUFFERED=1
  local vkserve
  vkserve="$(dirname "$1")/bin/vkserve"
  if [ -x "$vkserve" ] && ! "$vkserve" devices > /dev/null 2>&1; then
    local icd
    icd=$(find / -xdev \( -name 'nvidia_icd*.json' -o -name 'nvidia_icd.*.json' \) 2>/dev/null | head -1)
    echo "device_env: no Vulkan device through $1; driver manifest found: ${icd:-none}" >&2
    [ -n "$icd" ] && export VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd
  fi
}

# device_unpack_bundle DIR: the vkserve bundle carried as DIR/bundle.tar.xz,
# unpacked into /tmp/vk, or DIR/vk when none is packed. Sets VK to it.
device_unpack_bundle() {
  if [ -f "$1/bundle.tar.xz" ]; then
    mkdir -p /tmp/vk
    xz -dc "$1/bundle.tar.xz" | tar xf - -C /tmp/vk
    VK=$(find /tmp/vk -mindepth 1 -maxdepth 1 -type d | head -1)  # bundles are dot-named
  else
    VK=$1/vk
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
# one a bare `wait` waits for, forever: wait on the PIDs of your own jobs
# (session 15's call 2 sat out its 600 s limit on a bare `wait`).
sample_clocks() {
  nvidia-smi --query-gpu="$4" --format="$3" -lms "$2" > "$1" &
  SMI=$!
}
stop_clock_sampling() {
  [ -n "${SMI:-}" ] && kill "$SMI" 2>/dev/null
  SMI=
}

# device_call_begin NAME [WATCHDOG_S]: what a device call's run.sh starts
# with (benchmarks/results/*/call*/run.sh): the bundle carried as
# .bundle-<NAME>/ unpacked (VK), its environment, R=$OUT/r for the logs, the
# SM clock sampled every second into $R/clocks.csv, and a watchdog that packs
# $R into $OUT/<NAME>.tar.xz after WATCHDOG_S seconds (default 500), so a
# call that overruns its limit still brings its logs back. T is a timeout
# prefix for the steps. End the call with device_call_end.
device_call_begin() {
  CALL_NAME=$1
  device_unpack_bundle ".bundle-$1"
  device_env "$VK/env.sh"
  R=$OUT/r
  mkdir -p "$R"
  T="timeout -k 5"
  sample_clocks "$R/clocks.csv" 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
  ( sleep "${2:-500}"; pack_call ) > /dev/null 2>&1 &
  WATCHDOG=$!
  echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
}

# pack_call: $R as $OUT/$CALL_NAME.tar.xz (at most 8 files come back from a
# call; one archive holds them all).
pack_call() {
  tar cf - -C "$OUT" r | xz -1 > "$OUT/$CALL_NAME.tar.xz.part" && mv "$OUT/$CALL_NAME.tar.xz.part" "$OUT/$CALL_NAME.tar.xz"
}

# device_call_end: the clock at the end, sampling and watchdog stopped, $R
# packed and removed.
device_call_end() {
  echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
  stop_clock_sampling
  kill "$WATCHDOG" 2>/dev/null
  pack_call && rm -rf "$R"
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

# export_model NAME DEST: model NAME exported by $B/peers.py (random
# weights, opset 17) to DEST, its log appended to $OUT/export.log; or, when
# $BIG_MODEL_ONNX is set (a dry run on a small model), that file copied
# there. Returns 1 when the export fails, after printing its log.
export_model() {
  if [ -n "${BIG_MODEL_ONNX:-}" ]; then
    cp "$BIG_MODEL_ONNX" "$2"
    return
  fi
  python3 "$B/peers.py" export "$1" "$2" --opset 17 >> "$OUT/export.log" 2>&1 && return 0
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
