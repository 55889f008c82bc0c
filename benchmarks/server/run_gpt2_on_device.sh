#!/usr/bin/env bash
# GPT-2 (full size, exported on the device) served by vkserve under
# vkserve_load: the request split of a model whose response (the logits,
# 25.7 MB per sequence) dwarfs its input, with PyTorch timed in the same call.
# Run from the bundle's parent directory: bash .bundle-server/run_gpt2_on_device.sh
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
for d in "$B" "$B/.." "$B/../benchmarks"; do [ -f "$d/device_common.sh" ] && break; done
source "$d/device_common.sh" || exit 1  # beside a bundled script, or the repository's
OUT=${OUT:-/tmp/out}
REPO=/tmp/repo-gpt2
mkdir -p "$OUT" "$REPO/gpt2/1"
device_env "$B/env.sh"
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
} > "$OUT/environment.txt" 2>&1
export_model gpt2 "$REPO/gpt2/1/model.onnx" || exit 1
printf 'max_batch_size: 8\n' > "$REPO/gpt2/config.pbtxt"
python3 "$B/peers.py" time gpt2 --batch 1 8 --dtype fp32 > "$OUT/peers.jsonl" 2> "$OUT/peers.err"
printf 'repository { path: "%s" }\ngpu { pipeline_cache_path: "/tmp/pc.bin" }\nlimits { max_message_bytes: 2147483647 }\n' \
  "$REPO" > "$OUT/server.pbtxt"
GLIBC_TUNABLES=glibc.malloc.hugetlb=1 start_server "$B/bin/vkserve" "$OUT/server.pbtxt" || exit 1
for batch in 1 8; do
  echo "== gpt2 batch $batch concurrency 1" >> "$OUT/load.log"
  "$B/bin/vkserve_load" --model gpt2 --batch "$batch" --concurrency 1 --seconds 6 \
    --metrics http://127.0.0.1:8002/metrics >> "$OUT/load.log" 2>&1
done
stop_server "$OUT/load.log"
cat "$OUT/load.log" "$OUT/peers.jsonl"
