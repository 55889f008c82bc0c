#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# ONNX Runtime `.ort` models: each model is exported (the peers script),
# converted to .ort at levels basic, extended and all by ONNX Runtime's
# Python package (convert_ort.py), and every file (the .onnx and its three
# .ort twins) is timed with vkserve (after a warm-up at the same shape), and,
# with ORTWEB set, with ONNX Runtime's WebGPU and CPU execution providers.
# ORTWEB is a command (not in this repository) that takes FILE EP (webgpu or
# cpu) and prints one JSON line with the file's median ms. GPU clocks are
# sampled throughout. Writes OUT/{environment.txt,convert.jsonl,
# inspect.jsonl,vkserve.log,ortweb.jsonl,clocks.csv,ort.md}.
# Environment: MODELS, REPEAT (200), WARMUP (3 s), ORTWEB.
set -uo pipefail
USAGE="benchmarks/ort/run.sh --vkserve BIN --out DIR --peers PY"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
need_peers "exporting the models"
ORTWEB=${ORTWEB:-}
MODELS=${MODELS:-"mobilenet_v2 resnet50 efficientnet_b0 bert-base"}
REPEAT=${REPEAT:-200}
WARMUP=${WARMUP:-3}
mkdir -p /tmp/models
have_smi=0; command -v nvidia-smi >/dev/null && have_smi=1
clock() { [ $have_smi = 1 ] && nvidia-smi --query-gpu=clocks.sm --format=csv,noheader,nounits | head -1 || echo na; }
[ $have_smi = 1 ] && sample_clocks "$OUT/clocks.csv" 250 csv timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  [ $have_smi = 1 ] && nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
  lscpu | grep -E 'Model name|^CPU\(s\)'
  lscpu | grep -o 'avx512f' | head -1
  python3 -c "import onnxruntime, sys; print('python onnxruntime', onnxruntime.__version__)" 2>&1
  "$VKSERVE" devices 2>&1 | head -8
} > "$OUT/environment.txt" 2>&1

for m in $MODELS; do
  [ -f "/tmp/models/$m.onnx" ] || python3 "$PEERS" export "$m" "/tmp/models/$m.onnx" --opset 17 >> "$OUT/export.log" 2>&1
  python3 "$B/convert_ort.py" "/tmp/models/$m.onnx" >> "$OUT/convert.jsonl" 2>> "$OUT/export.log"
  for f in "$m.onnx" "${m}_basic.ort" "${m}_extended.ort" "${m}_all.ort"; do
    p=/tmp/models/$f
    [ -f "$p" ] || continue
    echo "== $f" >> "$OUT/vkserve.log"
    "$VKSERVE" inspect "$p" --json --dim N=1 2>> "$OUT/vkserve.log" | python3 "$B/inspect_summary.py" "$f" >> "$OUT/inspect.jsonl"
    "$VKSERVE" infer "$p" --dim N=1 --warmup "$WARMUP" --repeat "$REPEAT" --pipeline-cache /tmp/pc.bin >> "$OUT/vkserve.log" 2>&1
    echo "sm_clock_mhz_after: $(clock)" >> "$OUT/vkserve.log"
  done
  # A second vkserve pass in reverse order: host-side phases jitter by tens
  # of microseconds, so each file's figure is the better of two medians.
  for f in "${m}_all.ort" "${m}_extended.ort" "${m}_basic.ort" "$m.onnx"; do
    p=/tmp/models/$f
    [ -f "$p" ] || continue
    echo "== $f" >> "$OUT/vkserve.log"
    "$VKSERVE" infer "$p" --dim N=1 --warmup "$WARMUP" --repeat "$REPEAT" --pipeline-cache /tmp/pc.bin >> "$OUT/vkserve.log" 2>&1
    echo "sm_clock_mhz_after: $(clock)" >> "$OUT/vkserve.log"
  done
  for f in "$m.onnx" "${m}_basic.ort" "${m}_extended.ort" "${m}_all.ort"; do
    p=/tmp/models/$f
    [ -f "$p" ] && [ -n "$ORTWEB" ] || continue
    for ep in webgpu cpu; do
      # shellcheck disable=SC2086  # ORTWEB is a command line
      line=$(timeout 120 $ORTWEB "$p" "$ep" 2>/dev/null | tail -1)
      rc=$?
      [ -n "$line" ] || line="{\"file\": \"$f\", \"ep\": \"$ep\", \"error\": \"exit $rc, no output (crashed)\"}"
      echo "${line%\}}, \"sm_clock_mhz_after\": \"$(clock)\"}" >> "$OUT/ortweb.jsonl"
    done
  done
done
stop_clock_sampling
python3 "$B/summarize.py" "$OUT" > "$OUT/ort.md" 2>> "$OUT/export.log"
cat "$OUT/environment.txt" "$OUT/ort.md"
