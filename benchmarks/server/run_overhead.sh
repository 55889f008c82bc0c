#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The per-request gRPC overhead of ModelInfer (for tinynet, client p50 minus
# the server's request time; the target is <= 100 us at 1 client and
# >= 20,000 req/s at 64 clients), measured REPEATS times per
# row so that the table shows medians, not one noisy run:
#   tinynet_pool  (no dynamic_batching, two sessions)  at each of $CLIENTS
#   tinynet_batch (dynamic_batching, no delay)         at each of $CLIENTS
# Each vkserve_load run also times gRPC's floor (an empty ServerLive call,
# p50 of 2,000 back to back), so the overhead reads against it, and at one
# client that call again after idling as long as a request runs ("floor at
# cadence": gRPC's threads woken from sleep, as between real requests); the rows
# "ServerLive" run that empty call as the load itself (vkserve_load --live)
# at each client count: what gRPC alone delivers on the machine, the
# ceiling for the req/s column.
# CLIENT_MODES="block poll" also runs every row with vkserve_load --poll
# (rows "MODEL/poll"): the client finishes each call by polling instead of
# sleeping, so its own wake-up drops out of the overhead.
#
# About 3 minutes with the defaults (2 models x 3 client counts x 3 runs x
# (1 s warm-up + 6 s window + the floor)). It needs no peers script, so it
# also runs on lavapipe, e.g.
#   GRPC_PORT=18701 METRICS_PORT=18702 SECONDS_PER_RUN=4 \
#     benchmarks/server/run_overhead.sh --vkserve build/vkserve --out /tmp/overhead
# Writes OUT/overhead.md (medians, and every run), load.log, serve.log.
set -uo pipefail
USAGE="benchmarks/server/run_overhead.sh --vkserve BIN --out DIR [--load BIN] [--tinynet ONNX]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
REPO=${REPO:-/tmp/overhead_repo}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-6}
WARMUP=${WARMUP:-1}
REPEATS=${REPEATS:-3}
CLIENTS=${CLIENTS:-"1 8 64"}
MODELS=${MODELS:-"tinynet_pool tinynet_batch"}
GRPC_PORT=${GRPC_PORT:-8001}
INFER_THREADS=${INFER_THREADS:-}  # grpc.infer_threads; unset: the server's default
CLIENT_MODES=${CLIENT_MODES:-block}  # block and/or poll (vkserve_load --poll)
METRICS_PORT=${METRICS_PORT:-8002}
mkdir -p "$OUT"
rm -rf "$REPO"
mkdir -p "$REPO"

describe_machine "$VKSERVE" > "$OUT/environment.txt" 2>&1
tinynet_repository "$REPO" "$TINYNET"
cat > "$OUT/server.pbtxt" <<CFG
grpc { port: $GRPC_PORT ${INFER_THREADS:+infer_threads: $INFER_THREADS} }
metrics { port: $METRICS_PORT }
repository { path: "$REPO" }
gpu { pipeline_cache_path: "$OUT/pc.bin" }
log { format: JSON }
CFG
start_server "$VKSERVE" "$OUT/server.pbtxt" || exit 1

: > "$OUT/load.log"
for mode in $CLIENT_MODES; do
  tag=""
  [ "$mode" = poll ] && tag=/poll
  for m in $MODELS ServerLive; do
    for c in $CLIENTS; do
      for r in $(seq 1 "$REPEATS"); do
        echo "== $m$tag clients $c run $r" >> "$OUT/load.log"
        if [ "$m" = ServerLive ]; then
          set -- --model tinynet_pool --live
        else
          set -- --model "$m" --metrics "http://127.0.0.1:$METRICS_PORT/metrics"
        fi
        [ "$mode" = poll ] && set -- "$@" --poll
        "$LOAD" --url 127.0.0.1:$GRPC_PORT --concurrency "$c" --seconds "$SECONDS_PER_RUN" \
          --warmup "$WARMUP" "$@" >> "$OUT/load.log" 2>&1
        echo "exit $?" >> "$OUT/load.log"
      done
    done
  done
done
stop_server "$OUT/load.log"

python3 - "$OUT/load.log" > "$OUT/overhead.md" <<'PY'
import re, statistics, sys
runs = {}
current = None
for line in open(sys.argv[1]):
    m = re.match(r"== (\S+) clients (\d+) run (\d+)", line)
    if m:
        current = (m.group(1), int(m.group(2)))
    elif line.startswith("summary:") and current:
        runs.setdefault(current, []).append(
            {k: float(v) for k, v in (kv.split("=", 1) for kv in line.split()[1:])
             if k not in ("model", "rpc", "client")})
cols = [("req_per_s", "req/s", 0), ("p50_ms", "p50 us", 1e3), ("server_request_ms", "server request us", 1e3),
        ("grpc_overhead_p50_us", "overhead p50 us", 1), ("grpc_floor_p50_us", "floor us", 1),
        ("grpc_floor_cadence_p50_us", "floor at cadence us", 1)]
def cell(v, scale):
    return f"{v:.0f}" if scale == 0 else f"{v * scale:.1f}"
print("# ModelInfer overhead (medians of runs)\n")
print("| model | clients | runs | " + " | ".join(c[1] for c in cols) +
      " | overhead - floor us | overhead - floor at cadence us |")
print("|---|---|---|" + "---|" * (len(cols) + 2))
for (model, clients), rs in sorted(runs.items()):
    med = {k: statistics.median(r.get(k, float("nan")) for r in rs) for k, _, _ in cols}
    overs = [r["grpc_overhead_p50_us"] - r["grpc_floor_p50_us"] for r in rs if "grpc_overhead_p50_us" in r]
    over = statistics.median(overs) if overs else float("nan")
    cadence = [r["grpc_overhead_p50_us"] - r["grpc_floor_cadence_p50_us"] for r in rs
               if "grpc_floor_cadence_p50_us" in r]
    over_cadence = statistics.median(cadence) if cadence else float("nan")
    print(f"| {model} | {clients} | {len(rs)} | " +
          " | ".join(cell(med[k], s) for k, _, s in cols) + f" | {over:.1f} | {over_cadence:.1f} |")
print("\n## Every run\n")
print("| model | clients | " + " | ".join(c[1] for c in cols) + " |")
print("|---|---|" + "---|" * len(cols))
for (model, clients), rs in sorted(runs.items()):
    for r in rs:
        print(f"| {model} | {clients} | " + " | ".join(cell(r.get(k, float('nan')), s) for k, _, s in cols) + " |")
PY
cat "$OUT/environment.txt" "$OUT/overhead.md"
