#!/bin/bash
# Session 17, device call 5 (build f4b9ca5): issue 12's dynamic batching on
# the H200 (never measured there): benchmarks/server/run_batching_on_device.sh
# at 1 and 64 clients, FP32, from the bundle carried as one archive; the
# results packed into one file, also by a watchdog.
set -uo pipefail
mkdir -p /tmp/vkb && xz -dc .bundle-batching/bundle.tar.xz | tar xf - -C /tmp/vkb
R=$OUT/r; mkdir -p $R
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call5.tar.xz.part && mv $OUT/call5.tar.xz.part $OUT/call5.tar.xz; }
( sleep ${WATCHDOG_S:-330}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
OUT=$R CLIENTS="1 64" PRECISION=FP32 timeout -k 5 320 bash /tmp/vkb/.vkb/run_batching_on_device.sh > $R/run.log 2>&1
echo "rc=$?"
tail -40 $R/batching.md
kill $WATCHDOG 2>/dev/null
pack
