#!/bin/bash
# Session 18, device call 6: FP16 attention with a smaller coopmat row tile
# when the largest leaves SMs idle (bin/vkserve, 81d0cb1 + that rule in
# runtime/ops/flash_attention_cm.cc) against 81d0cb1 (bin/vkserve-old):
# attention_bench at FP16 (chosen kernel), then gpt2 and bert-base b1 FP16.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s18
device_unpack_bundle $B
device_env $VK/env.sh
cp -as "$VK" /tmp/vko && rm /tmp/vko/bin/vkserve && cp "$VK/bin/vkserve-old" /tmp/vko/bin/vkserve
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call6.tar.xz.part && mv $OUT/call6.tar.xz.part $OUT/call6.tar.xz; }
( sleep ${WATCHDOG_S:-280}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
for b in new:$VK old:/tmp/vko; do
  name=${b%%:*} dir=${b#*:}
  echo "-- $name"
  $T 60 python3 benchmarks/ops/attention_bench.py $dir/bin/vkserve 's128|s512' --warmup 0.5 --precision FP16 --kinds chosen
done 2>&1 | tee $R/attention.txt | grep -v "^\s*$"
for b in new:$VK old:/tmp/vko; do
  name=${b%%:*} dir=${b#*:}
  echo "== models $name $(date -u +%FT%TZ) SM $(clock)"
  OUT=$R/tf_$name PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="gpt2 bert-base" BATCHES="1" \
    $T 100 bash $dir/run_on_device.sh > $R/tf_$name.log 2>&1
  tail -2 $R/tf_$name/models.md
done
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
rm -f $R/*/profile_*.json $R/*/export.log
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
