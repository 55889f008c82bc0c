#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Is served GPT-2's GPU time inflated by the GPU idling between requests?
# 1 vs 2 closed-loop clients, with SM clocks sampled by nvidia-smi meanwhile.
set -uo pipefail
USAGE="benchmarks/server/idle_probe.sh --vkserve BIN --out DIR --peers PY [--load BIN]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
need_peers "exporting gpt2"
REPO=/tmp/repo-gpt2
mkdir -p "$OUT" "$REPO/gpt2/1"
export_model gpt2 "$REPO/gpt2/1/model.onnx" || exit 1
printf 'max_batch_size: 8\ninstance_group { count: 2 }\n' > "$REPO/gpt2/config.pbtxt"
printf 'repository { path: "%s" }\ngpu { pipeline_cache_path: "/tmp/pc.bin" }\nlimits { max_message_bytes: 2147483647 }\n' "$REPO" > "$OUT/server.pbtxt"
GLIBC_TUNABLES=glibc.malloc.hugetlb=1 start_server "$VKSERVE" "$OUT/server.pbtxt" || exit 1
for c in 1 2; do
  sample_clocks "$OUT/clocks_c$c.csv" 200 csv,noheader timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw
  echo "== gpt2 batch 1 concurrency $c" >> "$OUT/load.log"
  "$LOAD" --model gpt2 --batch 1 --concurrency $c --seconds 6 --metrics http://127.0.0.1:8002/metrics >> "$OUT/load.log" 2>&1
  stop_clock_sampling
done
"$VKSERVE" infer "$REPO/gpt2/1/model.onnx" --dim N=1 --repeat 30 --pipeline-cache /tmp/pc.bin 2>&1 | grep timing >> "$OUT/load.log"
stop_server
cat "$OUT/load.log"; for c in 1 2; do echo "clocks c$c (sm MHz median):"; awk -F', ' '{print $2}' "$OUT/clocks_c$c.csv" | sort -n | awk '{a[NR]=$1} END {print a[int(NR/2)+1], "min", a[1], "max", a[NR], "n", NR}'; done
