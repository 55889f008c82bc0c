#!/bin/bash
# Session 22, call 2. Bundle .bundle-call2/bundle.tar.xz:
#   bin/vkserve     581d95a: ModelInfer on InferQueues (server/infer_queues.h)
#   bin/vkserve_cb  the callback-API server with the same convolution code
#                   (e74e3cd + both session 21 conv patches = 8241ca0's tree)
#   bin/vkserve_load, bin/runtime_op_cases_test
# and .bundle-call2/cases.tar.xz: 108 op cases with onnxruntime references
# made on lavapipe: the 70 of the conv and GEMM families that need tensor
# cores (skipped there) and the fp16 convolution and gemm_f16io ones.
# 1. Those op cases at 581d95a on the H200 (8241ca0 changed the coopmat
#    pointwise loader, which lavapipe cannot run).
# 2. ModelInfer's overhead and req/s for tinynet (run_overhead_on_device.sh:
#    tinynet_pool, tinynet_batch and the empty ServerLive at 1 and 64
#    clients), callback API against InferQueues at the default thread count
#    and at one thread, each twice, interleaved.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin call2 560
describe_machine $VK/bin/vkserve > $R/environment.txt 2>&1
xz -dc .bundle-call2/cases.tar.xz | tar xf - -C /tmp
VKSERVE_OP_CASES_DIR=/tmp/cases_sel $T 180 $VK/bin/runtime_op_cases_test > $R/op_cases.txt 2>&1
echo "op cases rc=$?: $(grep -c '^\[       OK' $R/op_cases.txt) OK, $(grep -c '^\[  FAILED  \]' $R/op_cases.txt) failed, $(grep -c '^\[  SKIPPED' $R/op_cases.txt) skipped"
grep -E "^\[  FAILED|Failure" $R/op_cases.txt | head -20
for round in 1 2; do
  for cfg in cb:vkserve_cb: queues:vkserve: queues1:vkserve:1; do
    IFS=: read -r name bin threads <<< "$cfg"
    echo "== $name round $round SM $(clock | cut -d, -f1)"
    OUT=$R/overhead_${name}_$round VKSERVE=$VK/bin/$bin LOAD=$VK/bin/vkserve_load \
      ONNX=config/examples/repository/tinynet/1/model.onnx INFER_THREADS=$threads \
      CLIENTS="1 64" REPEATS=1 SECONDS_PER_RUN=3 WARMUP=1 \
      $T 120 bash benchmarks/server/run_overhead_on_device.sh 2>&1 | grep "^|" | head -8
  done
done | tee $R/overhead.txt
device_call_end
