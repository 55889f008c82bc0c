#!/usr/bin/env bash
# Model latency on the GPU machine: vkserve against PyTorch eager, PyTorch
# with CUDA graphs and ONNX Runtime (CPU), measured in the same call so every
# figure shares one machine state. Run from the bundle directory's parent:
#   bash .bundle-models/run_on_device.sh
# Writes $OUT/models.md and the raw logs. VKSERVE_FLAGS (e.g. --no-fusion,
# --no-attention-fusion, --precision FP16) go to every `vkserve infer`: run
# the script twice in one call, with two OUT directories, for an A/B.
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/models
source "$B/env.sh"
export PYTHONUNBUFFERED=1
REPEAT=${REPEAT:-30}
MODELS=${MODELS:-"mobilenet_v2 resnet50"}
BATCHES=${BATCHES:-"1 32"}
read -r -a FLAGS <<< "${VKSERVE_FLAGS:-}"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$B/bin/vkserve" devices | head -12
} > "$OUT/environment.txt" 2>&1

for m in $MODELS; do
  python3 "$B/peers.py" export "$m" "/tmp/models/$m.onnx" --opset 17 >> "$OUT/export.log" 2>&1
  python3 "$B/peers.py" time "$m" --batch $BATCHES --dtype fp32 >> "$OUT/peers.jsonl" 2>> "$OUT/peers.err"
  for n in $BATCHES; do
    echo "== $m batch $n" >> "$OUT/vkserve.log"
    "$B/bin/vkserve" infer "/tmp/models/$m.onnx" --dim N=$n --repeat "$REPEAT" "${FLAGS[@]}" \
      --pipeline-cache /tmp/pc.bin >> "$OUT/vkserve.log" 2>&1
    if [ "$n" = 1 ]; then
      "$B/bin/vkserve" infer "/tmp/models/$m.onnx" --dim N=1 --repeat 5 "${FLAGS[@]}" \
        --profile "$OUT/profile_${m}_b1.json" --pipeline-cache /tmp/pc.bin > /dev/null 2>&1
    fi
  done
done
python3 "$B/summarize.py" "$OUT" > "$OUT/models.md" 2>> "$OUT/summarize.err"
cat "$OUT/environment.txt" "$OUT/models.md"
