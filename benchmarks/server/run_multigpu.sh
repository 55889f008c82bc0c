#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Instance groups across GPUs on a machine with 2 or 4 GPUs, in one run. It
# has run on lavapipe with one "GPU" only (below); no multi-GPU record yet.
#
#  - resnet50 (exported by the peers script, random weights, batch dimension
#    symbolic), batch-1 requests, dynamic batching
#      dynamic_batching { preferred_batch_size: [8, 16, 32]
#                         max_queue_delay_microseconds: 500 }
#    served as resnet50_g1 (instance_group { count: 2 gpus: [a] }),
#    resnet50_g2 (gpus: [a, b]) and, with 4 GPUs, resnet50_g4 (gpus: [a, b,
#    c, d]): two sessions on EACH listed GPU; at 64 and 256 clients each
#    (vkserve_load, closed loop). The Vulkan indices of the GPUs are read
#    from `vkserve devices` (its discrete devices, in its order), since a
#    CPU device (lavapipe) may be listed among them.
#  - PyTorch (the peers script's time, eager and CUDA graph, fp32) at batch 32 on each
#    GPU alone, then on all GPUs at once (one process per GPU): the per-GPU
#    reference throughput in the same machine state.
#  - The target: resnet50 throughput scales >= 1.8x from 1 to 2 GPUs (at
#    each client count); the split of requests over the GPUs comes from
#    /metrics (vkserve_phase_duration_seconds_count{phase="gpu"} per gpu
#    label) and the cross-device copies (none expected: inputs come from the
#    host).
#
# Writes OUT/multigpu.md (table and target), load.log (every run in
# full), pytorch.jsonl, metrics.txt, serve.log, environment.txt.
#
# Without a GPU (lavapipe, one device, so 1 GPU only):
#   BIG_MODEL_ONNX=config/examples/repository/tinynet/1/model.onnx SECONDS_PER_RUN=2 WARMUP=1 \
#     CLIENTS="4 8" MAX_GPUS=1 GRPC_PORT=18101 METRICS_PORT=18102 \
#     benchmarks/server/run_multigpu.sh --vkserve build/vkserve --out /tmp/multigpu
set -uo pipefail
USAGE="benchmarks/server/run_multigpu.sh --vkserve BIN --out DIR --peers PY [--load BIN]"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
[ -n "${BIG_MODEL_ONNX:-}" ] || need_peers "exporting resnet50"
REPO=${REPO:-/tmp/multigpu_repo}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-10}
WARMUP=${WARMUP:-3}
CLIENTS=${CLIENTS:-"64 256"}
MAX_GPUS=${MAX_GPUS:-4}
GRPC_PORT=${GRPC_PORT:-8001}
METRICS_PORT=${METRICS_PORT:-8002}
BIG_MODEL_ONNX=${BIG_MODEL_ONNX:-}
mkdir -p "$OUT"
rm -rf "$REPO"
mkdir -p "$REPO"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=index,name,uuid,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  nproc
  "$VKSERVE" devices
} > "$OUT/environment.txt" 2>&1

# The Vulkan indices of the GPUs: discrete devices, else (dry run) all.
mapfile -t VK < <("$VKSERVE" devices 2>/dev/null | sed -n 's/^\[\([0-9]*\)\] .*(discrete,.*/\1/p')
if [ ${#VK[@]} -eq 0 ]; then
  mapfile -t VK < <("$VKSERVE" devices 2>/dev/null | sed -n 's/^\[\([0-9]*\)\] .*/\1/p')
fi
[ ${#VK[@]} -gt "$MAX_GPUS" ] && VK=("${VK[@]:0:$MAX_GPUS}")
NGPU=${#VK[@]}
if [ "$NGPU" -eq 0 ]; then echo "no Vulkan device"; cat "$OUT/environment.txt"; exit 1; fi
GROUPS_TO_RUN="1"
[ "$NGPU" -ge 2 ] && GROUPS_TO_RUN="1 2"
[ "$NGPU" -ge 4 ] && GROUPS_TO_RUN="1 2 4"
echo "GPUs (Vulkan indices): ${VK[*]}; configurations: $GROUPS_TO_RUN GPU(s)" | tee -a "$OUT/environment.txt"

# The model: resnet50 exported here, or the file given.
SRC="$OUT/resnet50.onnx"  # outside the repository: not a model
export_model resnet50 "$SRC" || exit 1
MAXB=32
PREFERRED="8, 16, 32"
if [ -n "$BIG_MODEL_ONNX" ]; then MAXB=8; PREFERRED="4, 8"; fi
for n in $GROUPS_TO_RUN; do
  mkdir -p "$REPO/resnet50_g$n/1"
  cp "$SRC" "$REPO/resnet50_g$n/1/model.onnx"
  LIST=$(IFS=,; echo "${VK[*]:0:$n}")
  cat > "$REPO/resnet50_g$n/config.pbtxt" <<CFG
max_batch_size: $MAXB
instance_group { count: 2 gpus: [$LIST] }
dynamic_batching {
  preferred_batch_size: [$PREFERRED]
  max_queue_delay_microseconds: 500
  default_queue_policy { max_queue_size: 1024 }
}
CFG
done

# PyTorch first, while no server holds the GPUs: each GPU alone, then all
# at once (one process per GPU).
: > "$OUT/pytorch.jsonl"
if [ -z "$BIG_MODEL_ONNX" ]; then
  for i in $(seq 0 $((NGPU - 1))); do
    CUDA_VISIBLE_DEVICES=$i python3 "$PEERS" time resnet50 --batch 32 --dtype fp32 2>> "$OUT/pytorch.log" |
      sed "s/^{/{\"gpu\": $i, \"concurrent\": false, /" >> "$OUT/pytorch.jsonl"
  done
  for i in $(seq 0 $((NGPU - 1))); do
    CUDA_VISIBLE_DEVICES=$i python3 "$PEERS" time resnet50 --batch 32 --dtype fp32 2>> "$OUT/pytorch.log" |
      sed "s/^{/{\"gpu\": $i, \"concurrent\": true, /" >> "$OUT/pytorch.jsonl" &
  done
  wait
fi

cat > "$OUT/server.pbtxt" <<CFG
grpc { port: $GRPC_PORT }
metrics { port: $METRICS_PORT }
repository { path: "$REPO" }
gpu { pipeline_cache_path: "/tmp/multigpu_pc.bin" }
log { format: JSON }
CFG
start_server "$VKSERVE" "$OUT/server.pbtxt" 1500 || exit 1

scrape() { scrape_metrics "$METRICS_PORT"; }
: > "$OUT/load.log"
for n in $GROUPS_TO_RUN; do
  for c in $CLIENTS; do
    echo "== resnet50_g$n batch 1 clients $c" >> "$OUT/load.log"
    scrape > "$OUT/before_g${n}_c$c.txt" 2>&1
    "$LOAD" --url 127.0.0.1:$GRPC_PORT --model "resnet50_g$n" --batch 1 --concurrency "$c" \
      --seconds "$SECONDS_PER_RUN" --warmup "$WARMUP" \
      --metrics "http://127.0.0.1:$METRICS_PORT/metrics" >> "$OUT/load.log" 2>&1
    echo "exit $?" >> "$OUT/load.log"
    scrape > "$OUT/after_g${n}_c$c.txt" 2>&1
  done
done
scrape > "$OUT/metrics.txt" 2>&1
stop_server "$OUT/load.log"

# The table, the per-GPU split (from /metrics before and after each run)
# and the target.
python3 - "$OUT" "$GROUPS_TO_RUN" "$CLIENTS" > "$OUT/multigpu.md" <<'PY'
import json, os, re, sys
out, groups, clients = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
rows, current = {}, None
for line in open(os.path.join(out, "load.log")):
    m = re.match(r"== resnet50_g(\d+) batch 1 clients (\d+)", line)
    if m:
        current = (int(m.group(1)), int(m.group(2)))
    elif line.startswith("summary:") and current:
        rows[current] = {k: v for k, v in (kv.split("=", 1) for kv in line.split()[1:])}
f = lambda r, k: float(r.get(k, "nan"))

def gpu_counts(path, model):
    # Requests per gpu label: the gpu phase's histogram count.
    counts = {}
    pat = re.compile(r'^vkserve_phase_duration_seconds_count\{(.*)\} (\S+)$')
    for line in open(path):
        m = pat.match(line.strip())
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        if labels.get("model") == model and labels.get("phase") == "gpu":
            counts[labels.get("gpu", "")] = float(m.group(2))
    return counts

def copies(path, model):
    total = 0.0
    for line in open(path):
        if line.startswith("vkserve_cross_device_copies_total{") and f'model="{model}"' in line:
            total += float(line.split()[-1])
    return total

print("# resnet50 across GPUs (dynamic batching, batch-1 requests)\n")
print("| GPUs | clients | infer/s | per GPU infer/s | p50 ms | p99 ms | server queue ms | GPU ms | "
      "inferences/execution | requests per GPU (run and its warm-up) | cross-device copies |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for (n, c), r in sorted(rows.items()):
    model = f"resnet50_g{n}"
    try:
        before = gpu_counts(os.path.join(out, f"before_g{n}_c{c}.txt"), model)
        after = gpu_counts(os.path.join(out, f"after_g{n}_c{c}.txt"), model)
        split = ", ".join(f"{g[:12]}…: {after[g] - before.get(g, 0):.0f}" for g in sorted(after))
        copied = copies(os.path.join(out, f"after_g{n}_c{c}.txt"), model)
    except OSError:
        split, copied = "", float("nan")
    rate = f(r, "infer_per_s")
    print(f"| {n} | {c} | {rate:.1f} | {rate / n:.1f} | {f(r,'p50_ms'):.3f} | {f(r,'p99_ms'):.3f} | "
          f"{f(r,'server_queue_ms'):.3f} | {f(r,'server_gpu_ms'):.3f} | "
          f"{f(r,'inferences_per_execution'):.2f} | {split} | {copied:.0f} |")

torch = [json.loads(l) for l in open(os.path.join(out, "pytorch.jsonl")) if l.startswith("{")]
if torch:
    print("\n## PyTorch resnet50, batch 32, fp32 (images/s)\n")
    print("| GPU | concurrent with the other GPUs | mode | median ms | images/s |")
    print("|---|---|---|---|---|")
    for t in torch:
        print(f"| {t['gpu']} | {t['concurrent']} | {t['peer']} | {t['median_ms']:.3f} | "
              f"{32 * 1000 / t['median_ms']:.0f} |")

print("\n## Target\n")
for c in clients:
    one, two = rows.get((1, int(c))), rows.get((2, int(c)))
    if one and two:
        s = f(two, "infer_per_s") / max(f(one, "infer_per_s"), 1e-9)
        print(f"- {'PASS' if s >= 1.8 else 'FAIL'}: 1 -> 2 GPUs at {c} clients scales >= 1.8x: "
              f"{f(one,'infer_per_s'):.1f} -> {f(two,'infer_per_s'):.1f} infer/s ({s:.2f}x)")
    four = rows.get((4, int(c)))
    if one and four:
        s = f(four, "infer_per_s") / max(f(one, "infer_per_s"), 1e-9)
        print(f"- 1 -> 4 GPUs at {c} clients: {s:.2f}x")
PY
cat "$OUT/environment.txt" "$OUT/multigpu.md"
grep -c "^exit 0" "$OUT/load.log" | awk '{print $1 " runs exited 0"}'
