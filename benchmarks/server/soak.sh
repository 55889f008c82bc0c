#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The soak benchmark: a vkserve daemon under vkserve_soak for SECONDS with
# CLIENTS clients — good requests checked for their values, large batches,
# ten kinds of bad requests, a model reloaded every 5 s, and optionally a
# heavy model — sampling the server's RSS and GPU memory. Works here
# (lavapipe) and on a GPU machine.
#
#   benchmarks/server/soak.sh OUT_DIR [SECONDS=600] [CLIENTS=64]
#   VKSERVE=build/vkserve VKSERVE_SOAK=build/benchmarks/vkserve_soak (defaults)
#   HEAVY=/path/model.onnx HEAVY_INPUT=input HEAVY_SHAPE=1,3,224,224 (optional)
#
# Writes OUT_DIR/soak.txt (the
# series and summary), serve.log and environment.txt; exits with the soak's
# status (1 when a good request failed or a bad one was accepted).
set -uo pipefail
OUT=$1
SECONDS_TOTAL=${2:-600}
CLIENTS=${3:-64}
VKSERVE=${VKSERVE:-build/vkserve}
VKSERVE_SOAK=${VKSERVE_SOAK:-build/benchmarks/vkserve_soak}
PY=${PY:-$(command -v /usr/bin/python3 || command -v python3)}
mkdir -p "$OUT"
REPO=$(mktemp -d /tmp/vkserve_soak_XXXXXX)
trap 'rm -rf "$REPO"' EXIT

# y = x + 1 for x float[N,4]: the light and the reloaded model.
"$PY" - "$REPO" <<'PYEOF'
import os, sys
import onnx
from onnx import TensorProto, helper
repo = sys.argv[1]
graph = helper.make_graph(
    [helper.make_node("Add", ["x", "one"], ["y"])], "addone",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
    [helper.make_tensor("one", TensorProto.FLOAT, [], [1.0])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
model.ir_version = 8
for name in ("addone", "reloaded"):
    os.makedirs(f"{repo}/{name}/1", exist_ok=True)
    onnx.save(model, f"{repo}/{name}/1/model.onnx")
    with open(f"{repo}/{name}/config.pbtxt", "w") as f:
        f.write("instance_group { count: 2 }\n")
PYEOF
HEAVY_ARGS=()
if [ -n "${HEAVY:-}" ]; then
  mkdir -p "$REPO/heavy/1"
  cp "$HEAVY" "$REPO/heavy/1/model.onnx"
  echo "instance_group { count: 2 }" > "$REPO/heavy/config.pbtxt"
  HEAVY_ARGS=(--heavy heavy --heavy-input "$HEAVY_INPUT" --heavy-shape "$HEAVY_SHAPE")
fi

GRPC_PORT=${GRPC_PORT:-18001}
METRICS_PORT=${METRICS_PORT:-18002}
cat > "$OUT/server.pbtxt" <<CFG
grpc { port: $GRPC_PORT }
metrics { port: $METRICS_PORT }
repository { path: "$REPO" model_control: EXPLICIT }
gpu { pipeline_cache_path: "" }
log { level: WARNING }
limits { allow_shared_memory: true }
CFG
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -n), $(nproc) cores"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  "$VKSERVE" devices 2>&1 | head -4
  echo "command: benchmarks/server/soak.sh OUT $SECONDS_TOTAL $CLIENTS ${HEAVY:+(HEAVY=$(basename "$HEAVY") $HEAVY_SHAPE)}"
} > "$OUT/environment.txt" 2>&1

"$VKSERVE" serve --config "$OUT/server.pbtxt" > "$OUT/serve.stdout" 2> "$OUT/serve.log" &
SERVER=$!
for _ in $(seq 1 300); do
  grep -q "listening" "$OUT/serve.stdout" "$OUT/serve.log" 2>/dev/null && break
  kill -0 "$SERVER" 2>/dev/null || { echo "vkserve exited at start:"; cat "$OUT/serve.log"; exit 1; }
  sleep 0.2
done
"$VKSERVE_SOAK" --url "127.0.0.1:$GRPC_PORT" --metrics "http://127.0.0.1:$METRICS_PORT/metrics" \
  --pid "$SERVER" --clients "$CLIENTS" --seconds "$SECONDS_TOTAL" \
  --sample-seconds "$(( SECONDS_TOTAL >= 300 ? 15 : 5 ))" "${HEAVY_ARGS[@]}" > "$OUT/soak.txt" 2>&1
STATUS=$?
kill -TERM "$SERVER"
wait "$SERVER"
echo "server exit status after SIGTERM: $?" >> "$OUT/soak.txt"
cat "$OUT/environment.txt" "$OUT/soak.txt"
exit $STATUS
