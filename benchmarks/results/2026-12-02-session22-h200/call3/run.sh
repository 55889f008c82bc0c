#!/bin/bash
# Session 22, call 3 (bin/vkserve at 581d95a, ModelInfer on InferQueues with
# the default 8 threads): the 18 op cases call 2 had no time left for
# (tensor-core convolutions and GEMMs; references from onnxruntime on
# lavapipe), then issue 12's batching run (run_batching_on_device.sh, FP32,
# two instances, 1 and 64 clients), as session 17's call 5 ran it on the
# callback-API server.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin call3 560
VKSERVE_OP_CASES_DIR=$VK/cases $T 150 $VK/bin/runtime_op_cases_test > $R/op_cases.txt 2>&1
echo "op cases rc=$?: $(grep -c '^\[       OK' $R/op_cases.txt) OK, $(grep -c '^\[  FAILED  \]' $R/op_cases.txt) failed, $(grep -c '^\[  SKIPPED' $R/op_cases.txt) skipped"
grep -E "^\[  FAILED|Failure" $R/op_cases.txt | head -20
OUT=$R/batching CLIENTS="1 64" PRECISION=FP32 $T 330 bash $VK/run_batching_on_device.sh > $R/batching_run.log 2>&1
echo "batching rc=$?"
tail -40 $R/batching/batching.md
device_call_end
