#!/bin/bash
# Prepared in session 23 (no device time was left to it), NOT RUN. One call;
# next/make_bundles.sh writes .bundle-serving/bundle.tar.xz: bin/vkserve
# (HEAD: the batcher's pacing, server/batch_pacing.h), bin/vkserve_nopace
# (HEAD with the pacing off), bin/vkserve_load, bin/vkserve_grpc_floor (HEAD:
# --poll / --client poll), run_batching_on_device.sh,
# run_overhead_on_device.sh, peers.py, tinynet.onnx. Device call: carry
# [".bundle-serving"], command
#   bash benchmarks/results/2026-12-02-session22-h200/next/serving.sh
#  1. issue 12's batching run (FP32, 1, 16 and 64 clients) with and without the
#     pacing: inferences per execution at 64 clients (19.1 in session 22),
#     inferences/s (2,452) and p99 (38.3 ms against 18.6);
#  2. the overhead run with a blocking and a polling client (CLIENT_MODES):
#     how much of tinynet's 150 us at one client is the client's wake-up;
#  3. gRPC's empty call by server API, blocking and polling client.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin serving 560
for bin in vkserve vkserve_nopace; do
  echo "== batching $bin SM $(clock | cut -d, -f1)"
  VKSERVE=$VK/bin/$bin OUT=$R/batching_$bin CLIENTS="1 16 64" PRECISION=FP32 SECONDS_PER_RUN=6 \
    $T 200 bash $VK/run_batching_on_device.sh > $R/batching_$bin.log 2>&1
  echo "rc=$?"; grep -E "resnet50_batch \| 1 \||PASS|FAIL" $R/batching_$bin/batching.md
done
OUT=$R/overhead CLIENTS="1 64" REPEATS=2 CLIENT_MODES="block poll" SECONDS_PER_RUN=4 \
  $T 150 bash $VK/run_overhead_on_device.sh > $R/overhead.log 2>&1
echo "overhead rc=$?"; head -12 $R/overhead/overhead.md
for client in block poll; do
  $T 40 $VK/bin/vkserve_grpc_floor --calls 2000 --gaps 0,700,2000 --modes callback,async --client $client
done | tee $R/grpc_floor.txt
device_call_end
