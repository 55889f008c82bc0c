#!/usr/bin/env bash
# Is served GPT-2's GPU time inflated by the GPU idling between requests?
# 1 vs 2 closed-loop clients, with SM clocks sampled by nvidia-smi meanwhile.
set -uo pipefail
B=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/out}
REPO=/tmp/repo-gpt2
mkdir -p "$OUT" "$REPO/gpt2/1"
source "$B/env.sh"
python3 "$B/peers.py" export gpt2 "$REPO/gpt2/1/model.onnx" --opset 17 > "$OUT/export.log" 2>&1
printf 'max_batch_size: 8\ninstance_group { count: 2 }\n' > "$REPO/gpt2/config.pbtxt"
printf 'repository { path: "%s" }\ngpu { pipeline_cache_path: "/tmp/pc.bin" }\nlimits { max_message_bytes: 2147483647 }\n' "$REPO" > "$OUT/server.pbtxt"
GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "$B/bin/vkserve" serve --config "$OUT/server.pbtxt" > "$OUT/serve.stdout" 2> "$OUT/serve.log" &
SERVER=$!
for i in $(seq 1 600); do grep -q "listening" "$OUT/serve.stdout" 2>/dev/null && break; sleep 0.2; done
for c in 1 2; do
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,utilization.gpu,power.draw --format=csv,noheader -lms 200 > "$OUT/clocks_c$c.csv" &
  SMI=$!
  echo "== gpt2 batch 1 concurrency $c" >> "$OUT/load.log"
  "$B/bin/vkserve_load" --model gpt2 --batch 1 --concurrency $c --seconds 6 --metrics http://127.0.0.1:8002/metrics >> "$OUT/load.log" 2>&1
  kill $SMI
done
"$B/bin/vkserve" infer "$REPO/gpt2/1/model.onnx" --dim N=1 --repeat 30 --pipeline-cache /tmp/pc.bin 2>&1 | grep timing >> "$OUT/load.log"
kill -TERM $SERVER; wait $SERVER
cat "$OUT/load.log"; for c in 1 2; do echo "clocks c$c (sm MHz median):"; awk -F', ' '{print $2}' "$OUT/clocks_c$c.csv" | sort -n | awk '{a[NR]=$1} END {print a[int(NR/2)+1], "min", a[1], "max", a[NR], "n", NR}'; done
