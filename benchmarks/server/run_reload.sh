#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Reload under load: does `systemctl reload`
# (SIGHUP) slow or fail requests?
#  - two copies of resnet50 (exported by the peers script, random weights,
#    batch dimension symbolic), `steady` (never changed) and `swapped`, two
#    sessions each, in one repository;
#  - run A: vkserve_load on steady (CLIENTS clients, batch 1) for
#    SECONDS_PER_RUN, with a second load of 4 clients on swapped: the baseline;
#  - run B: the same, and a third of the way in, `swapped` gets a version 2
#    (the same file) and the server a SIGHUP: version 2 is loaded and warmed
#    on the same GPU while version 1 serves, then swapped in, version 1 drained;
#  - the table: throughput, p50, p99 and failures of steady and swapped in
#    A and B, the reload's duration (RELOADING to READY in the log), and the
#    targets: no failed request in either load; steady's p99 in B within 10%
#    of A (the reload competes for the GPU while it loads and warms: this
#    says by how much).
#
# Writes OUT/reload.md (the table and the targets, checked), load.log
# (every run in full), serve.log, environment.txt.
#
# Without a GPU (lavapipe): BIG_MODEL_ONNX=<a small model>, e.g.
#   BIG_MODEL_ONNX=config/examples/repository/tinynet/1/model.onnx SECONDS_PER_RUN=6 \
#     CLIENTS=4 GRPC_PORT=18101 METRICS_PORT=18102 \
#     benchmarks/server/run_reload.sh --vkserve build/vkserve --out /tmp/reload
set -uo pipefail
USAGE="benchmarks/server/run_reload.sh --vkserve BIN --out DIR --peers PY [--load BIN]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
[ -n "${BIG_MODEL_ONNX:-}" ] || need_peers "exporting resnet50"
REPO=${REPO:-/tmp/reload_repo}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-15}
WARMUP=${WARMUP:-2}
CLIENTS=${CLIENTS:-16}
GRPC_PORT=${GRPC_PORT:-8001}
METRICS_PORT=${METRICS_PORT:-8002}
BIG_MODEL_ONNX=${BIG_MODEL_ONNX:-}
mkdir -p "$OUT"
rm -rf "$REPO"

describe_machine "$VKSERVE" > "$OUT/environment.txt" 2>&1

mkdir -p "$REPO/steady/1" "$REPO/swapped/1"
export_model resnet50 "$REPO/steady/1/model.onnx" || exit 1
cp "$REPO/steady/1/model.onnx" "$REPO/swapped/1/model.onnx"
for m in steady swapped; do
  printf 'max_batch_size: 8\ninstance_group { count: 2 }\n' > "$REPO/$m/config.pbtxt"
done
cat > "$OUT/server.pbtxt" <<CFG
grpc { port: $GRPC_PORT }
metrics { port: $METRICS_PORT }
repository { path: "$REPO" }
gpu { pipeline_cache_path: "/tmp/reload_pc.bin" }
CFG
start_server "$VKSERVE" "$OUT/server.pbtxt" 900 || exit 1

: > "$OUT/load.log"
load() {  # label model clients
  "$LOAD" --url 127.0.0.1:$GRPC_PORT --model "$2" --batch 1 --concurrency "$3" \
    --seconds "$SECONDS_PER_RUN" --warmup "$WARMUP" > "$OUT/$1.log" 2>&1
}
run() {  # label reload(0/1)
  load "$1_steady" steady "$CLIENTS" & local a=$!
  load "$1_swapped" swapped 4 & local b=$!
  if [ "$2" = 1 ]; then
    sleep "$(awk -v w="$WARMUP" -v s="$SECONDS_PER_RUN" 'BEGIN { print w + s / 3 }')"
    mkdir -p "$REPO/swapped/2" && cp "$REPO/swapped/1/model.onnx" "$REPO/swapped/2/model.onnx"
    echo "reload sent: $(date +%s.%N)" >> "$OUT/load.log"
    kill -HUP $SERVER
  fi
  wait $a $b
  for part in steady swapped; do
    echo "== $1 $part" >> "$OUT/load.log"; cat "$OUT/$1_$part.log" >> "$OUT/load.log"
  done
}
run A 0
run B 1
sleep 1
stop_server "$OUT/load.log"

python3 - "$OUT/load.log" "$OUT/serve.log" > "$OUT/reload.md" <<'PY'
import re, sys
rows, current = {}, None
for line in open(sys.argv[1]):
    if line.startswith("== "):
        current = line[3:].strip()
    elif line.startswith("summary:") and current:
        rows[current] = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
log = open(sys.argv[2]).read()
done = re.search(r"reload done: (.*)", log)
print("# Reload under load\n")
print("| run | model | requests | failed | req/s | p50 ms | p99 ms |")
print("|---|---|---|---|---|---|---|")
for key in ("A steady", "A swapped", "B steady", "B swapped"):
    r = rows.get(key, {})
    print(f"| {key.split()[0]}{' (reload)' if key.startswith('B') else ''} | {key.split()[1]} | "
          f"{r.get('requests', '?')} | {r.get('failed', '?')} | {r.get('req_per_s', '?')} | "
          f"{r.get('p50_ms', '?')} | {r.get('p99_ms', '?')} |")
print(f"\nreload: {done.group(1) if done else 'NOT DONE'}")
ok = True
failed = sum(int(rows.get(k, {}).get("failed", 1)) for k in ("A steady", "A swapped", "B steady", "B swapped"))
print(f"- no failed request: {'yes' if failed == 0 else f'NO ({failed})'}")
ok &= failed == 0 and done is not None and "~swapped" in done.group(1)
try:
    a, b = float(rows["A steady"]["p99_ms"]), float(rows["B steady"]["p99_ms"])
    print(f"- steady p99 with a reload {b:.3f} ms vs {a:.3f} ms without ({100 * (b / a - 1):+.1f}%; target within 10%)")
except (KeyError, ValueError, ZeroDivisionError):
    print("- steady p99: missing")
    ok = False
print(f"\nresult: {'PASS' if ok else 'FAIL'} (failures and the reload; the p99 target is reported, not enforced)")
PY
cat "$OUT/reload.md"
