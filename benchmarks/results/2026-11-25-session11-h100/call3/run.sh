#!/bin/bash
# Session 11, device call 3: the tensor-core attention with its K/V prefetch
# converted only when stored (no wait on the loads mid-tile) and Q fragments
# loaded once; GPU times now without the output's copy to host memory
# (attention_bench: the node's events; models: the gpu-compute column).
# attention_pick op cases on real tensor cores; attention FP16 beside torch
# SDPA; BERT-base / GPT-2 b1/b8 at FP32 (peers fp32 and fp16) and FP16.
set -uo pipefail
source benchmarks/device_common.sh
device_unpack_bundle .bundle-c3
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
VKSERVE_OP_CASES_DIR=$VK/cases timeout 100 $VK/bin/runtime_op_cases_test > $OUT/op_cases.log 2>&1
echo "op cases rc=$?: $(grep -c '^\[       OK' $OUT/op_cases.log) OK, $(grep -c '^\[  FAILED  \]' $OUT/op_cases.log) failed, $(grep -c '^\[  SKIPPED' $OUT/op_cases.log) skipped"
grep -E "^\[  FAILED|Failure" $OUT/op_cases.log | head -20
echo "== attention FP16 $(date -u +%FT%TZ) SM $(clock)"
timeout 150 python3 benchmarks/ops/attention_bench.py $VK/bin/vkserve --precision FP16 \
  --kinds chosen,coopmat,fused,unfused --warmup 0.5 --repeat 20 2>&1 | tee $OUT/attention_fp16.txt
echo "== torch SDPA SM $(clock)"
timeout 60 python3 benchmarks/ops/attention_bench.py --peers 2>&1 | tee $OUT/attention_peers.txt
echo "== models FP32 $(date -u +%FT%TZ) SM $(clock)"
OUT=$OUT/tf MODELS="bert-base gpt2" BATCHES="1 8" timeout 220 bash $VK/run_on_device.sh > $OUT/tf.log 2>&1
tail -5 $OUT/tf/models.md
echo "== models FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$OUT/tf16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="bert-base gpt2" BATCHES="1 8" \
  timeout 120 bash $VK/run_on_device.sh > $OUT/tf16.log 2>&1
tail -5 $OUT/tf16/models.md
echo "== SM clock at end: $(clock)"
stop_clock_sampling
