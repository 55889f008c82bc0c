#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Two builds' serving of a short model, interleaved: tinynet (two sessions)
# as tinynet_pool (no dynamic_batching) and tinynet_batch (dynamic batching,
# no delay), batch-1 requests at each of $CLIENTS, each build serving from
# its own start. Round r serves --vkserve then --baseline when r is odd, the
# other way round when even, so a drift of the machine falls on both. What it
# tells apart is the host's path per request (scheduling, gRPC, answers): the
# GPU work is a few tens of microseconds.
#
# About 2 minutes with the defaults (2 builds x 2 rounds x 2 models x 2 client
# counts x (1 s warm-up + 5 s)). No peers script; runs on lavapipe too, e.g.
#   GRPC_PORT=18801 METRICS_PORT=18802 SECONDS_PER_RUN=2 \
#     benchmarks/server/run_serving_ab.sh --vkserve build/vkserve --baseline OLD --out /tmp/ab
# Writes OUT/serving_ab.md (every row, per build and round), load.log (every
# run in full) and each server's log.
set -uo pipefail
USAGE="benchmarks/server/run_serving_ab.sh --vkserve BIN --baseline BIN --out DIR [--load BIN] [--tinynet ONNX]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
[ -n "$BASELINE" ] || { echo "$USAGE" >&2; exit 2; }
ROUNDS=${ROUNDS:-2}
CLIENTS=${CLIENTS:-"1 64"}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
WARMUP=${WARMUP:-1}
GRPC_PORT=${GRPC_PORT:-8001}
METRICS_PORT=${METRICS_PORT:-8002}
REPO=${REPO:-/tmp/serving_ab_repo}
mkdir -p "$OUT"
rm -rf "$REPO"
tinynet_repository "$REPO" "$TINYNET"
cat > "$OUT/server.pbtxt" <<CFG
grpc { port: $GRPC_PORT }
metrics { port: $METRICS_PORT }
repository { path: "$REPO" }
log { format: JSON }
CFG
describe_machine "$VKSERVE" > "$OUT/environment.txt" 2>&1

: > "$OUT/load.log"
serve() {  # BUILD_NAME BIN ROUND
  start_server "$2" "$OUT/server.pbtxt" || return 1
  local model c
  for model in tinynet_pool tinynet_batch; do
    for c in $CLIENTS; do
      echo "== $1 round $3 $model clients $c clock $(clock 2>/dev/null || echo none)" >> "$OUT/load.log"
      "$LOAD" --url 127.0.0.1:$GRPC_PORT --model "$model" --batch 1 --concurrency "$c" \
        --seconds "$SECONDS_PER_RUN" --warmup "$WARMUP" \
        --metrics "http://127.0.0.1:$METRICS_PORT/metrics" >> "$OUT/load.log" 2>&1
    done
  done
  stop_server "$OUT/load.log"
  cp "$OUT/serve.log" "$OUT/serve-$1-$3.log"
}
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then order="new baseline"; else order="baseline new"; fi
  for build in $order; do
    if [ "$build" = new ]; then serve new "$VKSERVE" "$r"; else serve baseline "$BASELINE" "$r"; fi
  done
done

python3 - "$OUT/load.log" > "$OUT/serving_ab.md" <<'PY'
import re, sys
rows, cur = [], None
for line in open(sys.argv[1]):
    m = re.match(r"== (\S+) round (\d+) (\S+) clients (\d+) clock (.*)", line)
    if m:
        cur = m.groups()
    elif line.startswith("summary:") and cur:
        kv = dict(x.split("=", 1) for x in line.split()[1:])
        rows.append((cur, kv))
f = lambda kv, k: float(kv.get(k, "nan"))
print("| build | round | model | clients | req/s | p50 ms | p99 ms | server request ms | "
      "requests a batch | gRPC overhead µs (mean) | clock |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for (build, rnd, model, clients, clock), kv in sorted(rows, key=lambda r: (r[0][2], int(r[0][3]), r[0][0], r[0][1])):
    print(f"| {build} | {rnd} | {model} | {clients} | {f(kv,'req_per_s'):.1f} | {f(kv,'p50_ms'):.3f} | "
          f"{f(kv,'p99_ms'):.3f} | {f(kv,'server_request_ms'):.3f} | {f(kv,'inferences_per_execution'):.2f} | "
          f"{f(kv,'grpc_overhead_mean_us'):.1f} | {clock.strip()} |")
PY
cat "$OUT/environment.txt" "$OUT/serving_ab.md"
