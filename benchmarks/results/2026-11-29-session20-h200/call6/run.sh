#!/bin/bash
# Session 20, device call 6: the coopmat attention kernel with fewer
# registers (registers.patch: Q fragments read from shared memory per tile
# instead of held; p packed to fp16 in registers instead of 32 fp32 scores;
# bin/vkserve) against ecc3bf9 (bin/vkserve_base), FP16; and the attention
# op cases (onnxruntime references made on lavapipe) on real tensor cores.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s20
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call6.tar.xz.part && mv $OUT/call6.tar.xz.part $OUT/call6.tar.xz; }
( sleep ${WATCHDOG_S:-400}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
VKSERVE_OP_CASES_DIR=$VK/cases $T 120 $VK/bin/runtime_op_cases_test > $R/op_cases.txt 2>&1
echo "op cases rc=$?: $(grep -c '^\[       OK' $R/op_cases.txt) OK, $(grep -c '^\[  FAILED  \]' $R/op_cases.txt) failed, $(grep -c '^\[  SKIPPED' $R/op_cases.txt) skipped"
grep -E "^\[  FAILED|Failure" $R/op_cases.txt | head -20
$T 60 python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve 'square_4096$' --precision FP16 --float16 --warmup 3 --repeat 20 | tail -1
for bin in vkserve_base vkserve vkserve_base vkserve; do
  echo "-- $bin SM $(clock)"
  $T 90 python3 benchmarks/ops/attention_bench.py $VK/bin/$bin --precision FP16 --kinds chosen --repeat 30 --warmup 0.3 \
    --out /tmp/ab_$bin 2>&1 | tail -n +2
done > $R/attention.txt 2>&1
cat $R/attention.txt
for bin in vkserve_base vkserve; do
  $VK/bin/$bin infer /tmp/ab_$bin/s2048_b1_chosen.onnx --precision FP16 --repeat 2 --pipeline-statistics 2>&1 | grep -i "attention" | head -3
done
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
