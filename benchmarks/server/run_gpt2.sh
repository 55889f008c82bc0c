#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# GPT-2 (full size, exported by the peers script) served by vkserve under
# vkserve_load: the request split of a model whose response (the logits,
# 25.7 MB per sequence) dwarfs its input, with PyTorch timed in the same run.
set -uo pipefail
USAGE="benchmarks/server/run_gpt2.sh --vkserve BIN --out DIR --peers PY [--load BIN]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
need_peers "exporting gpt2"
REPO=/tmp/repo-gpt2
mkdir -p "$OUT" "$REPO/gpt2/1"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} > "$OUT/environment.txt" 2>&1
export_model gpt2 "$REPO/gpt2/1/model.onnx" || exit 1
printf 'max_batch_size: 8\n' > "$REPO/gpt2/config.pbtxt"
python3 "$PEERS" time gpt2 --batch 1 8 --dtype fp32 > "$OUT/peers.jsonl" 2> "$OUT/peers.err"
printf 'repository { path: "%s" }\ngpu { pipeline_cache_path: "/tmp/pc.bin" }\nlimits { max_message_bytes: 2147483647 }\n' \
  "$REPO" > "$OUT/server.pbtxt"
GLIBC_TUNABLES=glibc.malloc.hugetlb=1 start_server "$VKSERVE" "$OUT/server.pbtxt" || exit 1
for batch in 1 8; do
  echo "== gpt2 batch $batch concurrency 1" >> "$OUT/load.log"
  "$LOAD" --model gpt2 --batch "$batch" --concurrency 1 --seconds 6 \
    --metrics http://127.0.0.1:8002/metrics >> "$OUT/load.log" 2>&1
done
stop_server "$OUT/load.log"
cat "$OUT/load.log" "$OUT/peers.jsonl"
