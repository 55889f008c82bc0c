#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The same model over gRPC and over HTTP/REST (KServe v2 with binary
# tensors), in one run: resnet50 (exported by the peers script, random
# weights), batch-1 requests, no dynamic batching, at 1 and 16 clients,
# gRPC and HTTP interleaved ROUNDS times, timed by vkserve_load's closed
# loop, with the server's phase split from /metrics.
#
# Writes OUT/protocols.md (the table and the HTTP - gRPC p50 difference),
# load.log (every run in full), serve.log, environment.txt.
#
# Without a GPU (lavapipe): BIG_MODEL_ONNX=<a small model> stands in for
# resnet50 and no peers script is needed, e.g.
#   BIG_MODEL_ONNX=config/examples/repository/tinynet/1/model.onnx SECONDS_PER_RUN=2 \
#     GRPC_PORT=18001 HTTP_PORT=18000 METRICS_PORT=18002 \
#     benchmarks/server/run_protocols.sh --vkserve build/vkserve --out /tmp/protocols
set -uo pipefail
USAGE="benchmarks/server/run_protocols.sh --vkserve BIN --out DIR --peers PY [--load BIN]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
[ -n "${BIG_MODEL_ONNX:-}" ] || need_peers "exporting resnet50"
REPO=${REPO:-/tmp/protocols_repo}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-6}
WARMUP=${WARMUP:-2}
CLIENTS=${CLIENTS:-"1 16"}
ROUNDS=${ROUNDS:-2}
PRECISION=${PRECISION:-FP32}
GRPC_PORT=${GRPC_PORT:-8001}
HTTP_PORT=${HTTP_PORT:-8000}
METRICS_PORT=${METRICS_PORT:-8002}
rm -rf "$REPO"
mkdir -p "$REPO/resnet50/1"
describe_machine "$VKSERVE" "  resnet50 precision: $PRECISION" > "$OUT/environment.txt" 2>&1
export_model resnet50 "$REPO/resnet50/1/model.onnx" || exit 1
printf 'max_batch_size: 32\ninstance_group { count: 2 }\nvkserve { precision: %s }\n' "$PRECISION" \
  > "$REPO/resnet50/config.pbtxt"
cat > "$OUT/server.pbtxt" <<CFG
grpc { port: $GRPC_PORT }
http { port: $HTTP_PORT }
metrics { port: $METRICS_PORT }
repository { path: "$REPO" }
gpu { pipeline_cache_path: "/tmp/protocols_pc.bin" }
log { format: JSON }
CFG
start_server "$VKSERVE" "$OUT/server.pbtxt" 900 || exit 1

: > "$OUT/load.log"
run() {  # protocol clients round
  local http=()
  [ "$1" = http ] && http=(--http "127.0.0.1:$HTTP_PORT")
  echo "== $1 clients $2 round $3" >> "$OUT/load.log"
  "$LOAD" --url "127.0.0.1:$GRPC_PORT" --model resnet50 --concurrency "$2" \
    --seconds "$SECONDS_PER_RUN" --warmup "$WARMUP" "${http[@]}" \
    --metrics "http://127.0.0.1:$METRICS_PORT/metrics" >> "$OUT/load.log" 2>&1
  echo "exit $?" >> "$OUT/load.log"
}
for c in $CLIENTS; do
  for r in $(seq "$ROUNDS"); do
    run grpc "$c" "$r"
    run http "$c" "$r"
  done
done
stop_server "$OUT/load.log"

python3 - "$OUT/load.log" > "$OUT/protocols.md" <<'PY'
import re, statistics, sys
rows, current = [], None
for line in open(sys.argv[1]):
    m = re.match(r"== (\w+) clients (\d+) round (\d+)", line)
    if m:
        current = (m[1], int(m[2]), int(m[3]))
    elif line.startswith("summary:") and current:
        rows.append((current, dict(kv.split("=", 1) for kv in line.split()[1:])))
f = lambda r, k: float(r.get(k, "nan"))
print("| protocol | clients | round | infer/s | p50 ms | p90 ms | p99 ms | server request ms | failed |")
print("|---|---|---|---|---|---|---|---|---|")
for (p, c, n), r in rows:
    print(f"| {p} | {c} | {n} | {f(r,'infer_per_s'):.1f} | {f(r,'p50_ms'):.3f} | {f(r,'p90_ms'):.3f} | "
          f"{f(r,'p99_ms'):.3f} | {f(r,'server_request_ms'):.3f} | {r.get('failed')} |")
print()
for c in sorted({c for (_, c, _), _ in rows}):
    p50 = {p: statistics.median(f(r, "p50_ms") for (q, k, _), r in rows if q == p and k == c)
           for p in ("grpc", "http") if any(q == p and k == c for (q, k, _), _ in rows)}
    if len(p50) == 2:
        print(f"- {c} clients: p50 HTTP {p50['http']:.3f} ms, gRPC {p50['grpc']:.3f} ms, "
              f"HTTP - gRPC {p50['http'] - p50['grpc']:+.3f} ms (medians over rounds)")
PY
cat "$OUT/environment.txt" "$OUT/protocols.md"
grep -c "^exit 0" "$OUT/load.log" | awk '{print $1 " runs exited 0"}'
