#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The server under load: `vkserve serve` with mobilenet_v2 and resnet50
# (exported by the peers script, random weights), vkserve_load at several
# batch sizes and concurrencies, and the server's own phase split read from
# /metrics. PyTorch (eager, CUDA graph) times the same architectures in the
# same run as the GPU-time peer. Writes OUT/server.md and the raw logs.
set -uo pipefail
USAGE="benchmarks/server/run_serving.sh --vkserve BIN --out DIR --peers PY [--load BIN]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
need_peers "exporting the models"
REPO=/tmp/repo
mkdir -p "$OUT" "$REPO"
MODELS=${MODELS:-"mobilenet_v2 resnet50"}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-6}

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$VKSERVE" devices | head -8
} > "$OUT/environment.txt" 2>&1

for m in $MODELS; do
  mkdir -p "$REPO/$m/1"
  python3 "$PEERS" export "$m" "$REPO/$m/1/model.onnx" --opset 17 >> "$OUT/export.log" 2>&1
  # Two sessions: one uploads/records while the other's work runs. No
  # dynamic_batching block: every request runs alone (run_batching.sh
  # measures batching).
  cat > "$REPO/$m/config.pbtxt" <<CFG
max_batch_size: 32
instance_group { count: 2 }
CFG
  python3 "$PEERS" time "$m" --batch 1 8 --dtype fp32 >> "$OUT/peers.jsonl" 2>> "$OUT/peers.err"
done

cat > "$OUT/server.pbtxt" <<CFG
repository { path: "$REPO" }
gpu { pipeline_cache_path: "/tmp/pc.bin" }
log { format: JSON }
trace { directory: "$OUT/traces" max_files: 10 }
CFG
start_server "$VKSERVE" "$OUT/server.pbtxt" || exit 1

for m in $MODELS; do
  for batch in 1 8; do
    for c in 1 4; do
      echo "== $m batch $batch concurrency $c" >> "$OUT/load.log"
      "$LOAD" --model "$m" --batch "$batch" --concurrency "$c" \
        --seconds "$SECONDS_PER_RUN" --metrics http://127.0.0.1:8002/metrics \
        $([ "$batch$c" = 11 ] && echo --trace) >> "$OUT/load.log" 2>&1
    done
  done
done
scrape_metrics 8002 > "$OUT/metrics.txt" 2>&1
stop_server "$OUT/load.log"
cat "$OUT/environment.txt" "$OUT/load.log" "$OUT/peers.jsonl"
