#!/bin/bash
# Session 11, device call 6: the tensor-core attention with O kept in
# accumulators and rescaled only when a row maximum grows past e^8.
# Every attention op case (and the weight-layout cases) on the device;
# attention FP16 beside torch SDPA; BERT-base / GPT-2 b1/b8 at FP32 (PyTorch
# fp32 and fp16 beside) and FP16.
set -uo pipefail
source benchmarks/device_common.sh
device_unpack_bundle .bundle-c6
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
VKSERVE_OP_CASES_DIR=$VK/cases timeout 150 $VK/bin/runtime_op_cases_test > $OUT/op_cases.log 2>&1
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
rm -f $OUT/tf*/profile_* $OUT/tf*/summarize.err $OUT/tf*/export.log
echo "== SM clock at end: $(clock)"
stop_clock_sampling
