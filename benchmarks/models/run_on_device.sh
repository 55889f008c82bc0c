#!/usr/bin/env bash
# Model latency on the GPU machine: vkserve against PyTorch eager, PyTorch
# with CUDA graphs and ONNX Runtime (CPU), measured in the same call so every
# figure shares one machine state. Run from the bundle directory's parent:
#   bash .bundle-models/run_on_device.sh
# Writes $OUT/models.md and the raw logs. VKSERVE_FLAGS (e.g. --no-fusion,
# --no-attention-fusion, --precision FP16) go to every `vkserve infer`: run
# the script twice in one call, with two OUT directories, for an A/B
# (PEERS=0 skips timing the peers again; models exported once are reused).
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
for d in "$B" "$B/.." "$B/../benchmarks"; do [ -f "$d/device_common.sh" ] && break; done
source "$d/device_common.sh" || exit 1  # beside a bundled script, or the repository's
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/models
device_env "$B/env.sh"
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
  "$B/bin/vkserve" devices | head -12
} > "$OUT/environment.txt" 2>&1

for m in $MODELS; do
  [ -f "/tmp/models/$m.onnx" ] ||
    python3 "$B/peers.py" export "$m" "/tmp/models/$m.onnx" --opset 17 >> "$OUT/export.log" 2>&1
  [ "${PEERS:-1}" = 0 ] || python3 "$B/peers.py" time "$m" --batch $BATCHES --dtype $DTYPES >> "$OUT/peers.jsonl" 2>> "$OUT/peers.err"
  for n in $BATCHES; do
    echo "== $m batch $n" >> "$OUT/vkserve.log"
    "$B/bin/vkserve" infer "/tmp/models/$m.onnx" --dim N=$n --repeat "$REPEAT" --warmup "$WARMUP" "${FLAGS[@]}" \
      --pipeline-cache /tmp/pc.bin >> "$OUT/vkserve.log" 2>&1
    echo "SM clock after: $(clock)" >> "$OUT/vkserve.log"
    if [ "$n" = 1 ]; then
      "$B/bin/vkserve" infer "/tmp/models/$m.onnx" --dim N=1 --repeat 5 "${FLAGS[@]}" \
        --profile "$OUT/profile_${m}_b1.json" --pipeline-cache /tmp/pc.bin > /dev/null 2>&1
    fi
  done
done
echo "SM clock at the end: $(clock)" >> "$OUT/environment.txt"
python3 "$B/summarize.py" "$OUT" > "$OUT/models.md" 2>> "$OUT/summarize.err"
cat "$OUT/environment.txt" "$OUT/models.md"
