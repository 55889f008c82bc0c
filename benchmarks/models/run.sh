#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Model latency: vkserve against PyTorch eager and PyTorch with CUDA graphs
# (fp32 and fp16), one after the other so every figure shares one machine
# state. The peers script exports each model (random weights, opset 17) and
# times the PyTorch peers. Writes OUT/models.md, environment.txt,
# peers.jsonl, vkserve.log and a b1 profile per model.
# Environment: MODELS (default "mobilenet_v2 resnet50"), BATCHES ("1 32"),
# DTYPES of the peers ("fp32 fp16"), REPEAT (30), WARMUP (2 s of untimed runs
# at the same shape before each timing: an idle GPU runs at a low clock),
# VKSERVE_FLAGS (e.g. --no-fusion or --precision FP16, given to every
# `vkserve infer`), PEERS_TIMING=0 to skip timing the peers (for a second
# invocation with other flags; exported models in /tmp/models are reused).
set -uo pipefail
USAGE="benchmarks/models/run.sh --vkserve BIN --out DIR --peers PY"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
need_peers "exporting the models"
mkdir -p "$OUT" /tmp/models
REPEAT=${REPEAT:-30}
# Seconds of untimed runs at the same shape before each timing: the H100
# idles at 345 MHz and reaches its clock only under load.
WARMUP=${WARMUP:-2}
DTYPES=${DTYPES:-"fp32 fp16"}
MODELS=${MODELS:-"mobilenet_v2 resnet50"}
BATCHES=${BATCHES:-"1 32"}
read -r -a FLAGS <<< "${VKSERVE_FLAGS:-}"
CLOCK_FIELDS=clocks.sm,clocks.max.sm  # for clock

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "SM clock before (current, max): $(clock)"
  echo "vkserve flags: ${VKSERVE_FLAGS:-none}; warm-up ${WARMUP} s; repeat ${REPEAT}"
  "$VKSERVE" devices | head -12
} > "$OUT/environment.txt" 2>&1

for m in $MODELS; do
  [ -f "/tmp/models/$m.onnx" ] ||
    python3 "$PEERS" export "$m" "/tmp/models/$m.onnx" --opset 17 >> "$OUT/export.log" 2>&1
  [ "${PEERS_TIMING:-1}" = 0 ] || python3 "$PEERS" time "$m" --batch $BATCHES --dtype $DTYPES >> "$OUT/peers.jsonl" 2>> "$OUT/peers.err"
  for n in $BATCHES; do
    echo "== $m batch $n" >> "$OUT/vkserve.log"
    "$VKSERVE" infer "/tmp/models/$m.onnx" --dim N=$n --repeat "$REPEAT" --warmup "$WARMUP" "${FLAGS[@]}" \
      --pipeline-cache /tmp/pc.bin >> "$OUT/vkserve.log" 2>&1
    echo "SM clock after: $(clock)" >> "$OUT/vkserve.log"
    if [ "$n" = 1 ]; then
      "$VKSERVE" infer "/tmp/models/$m.onnx" --dim N=1 --repeat 5 "${FLAGS[@]}" \
        --profile "$OUT/profile_${m}_b1.json" --pipeline-cache /tmp/pc.bin > /dev/null 2>&1
    fi
  done
done
echo "SM clock at the end: $(clock)" >> "$OUT/environment.txt"
python3 "$B/summarize.py" "$OUT" > "$OUT/models.md" 2>> "$OUT/summarize.err"
cat "$OUT/environment.txt" "$OUT/models.md"
