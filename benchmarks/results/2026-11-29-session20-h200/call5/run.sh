#!/bin/bash
# Session 20, device call 5: the coopmat attention kernel keeping fp16 K/V
# as loaded (kv_raw.patch; bin/vkserve) against the committed kernel
# (289f78d; bin/vkserve_base), with attention_bench.py no longer counting
# the FP16 casts of its fp32 inputs and output; PyTorch SDPA in the same
# call; bert-base and gpt2 b8 at FP16 with both builds.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s20
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call5.tar.xz.part && mv $OUT/call5.tar.xz.part $OUT/call5.tar.xz; }
( sleep ${WATCHDOG_S:-500}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
( for m in bert-base gpt2; do python3 $VK/peers.py export $m /tmp/$m.onnx --opset 17; done > $R/export.log 2>&1 ) &
EXPORT=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
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
echo "== SDPA $(date -u +%FT%TZ) SM $(clock)"
$T 90 python3 benchmarks/ops/attention_bench.py --peers > $R/sdpa.txt 2>&1; cat $R/sdpa.txt
wait $EXPORT
echo "== models FP16 b8 $(date -u +%FT%TZ) SM $(clock)"
for m in bert-base gpt2; do
  for bin in vkserve_base vkserve vkserve_base vkserve; do
    echo "-- $m $bin: $($T 60 $VK/bin/$bin infer /tmp/$m.onnx --dim N=8 --precision FP16 --repeat 30 --warmup 2 2>&1 | grep '^timing')"
  done
done | tee $R/models.txt
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
