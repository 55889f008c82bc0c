#!/bin/bash
# Session 15, device call 2 (build 6b47223: TensorScatter's circular fix,
# depthwise Conv on fp16 tensors).
#  1. The op cases call 1 did not finish or failed: the GEMM engine's 119
#     FP16 / float16 cases (three shards at once, so the tensor-core pipelines
#     compile on more cores), TensorScatter, the float16 depthwise convs.
#  2. MobileNet-V2 and EfficientNet-B0 at FP32 (PyTorch beside) and FP16, with
#     per-op profiles at batch 1.
#  3. gemm_bench (FP32, FP16 with fp16 weights, float16 models) and cuBLAS;
#     attention_bench at FP16 and torch SDPA.
# Everything it writes is packed into one file (the device returns 8 files).
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-c2
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"

echo "== op cases $(date -u +%FT%TZ)"
python3 tests/ops/gen_cases.py /tmp/cases --filter "$(cat $B/sel_regex)" 2>&1 | tail -1
xz -dc $B/expected.tar.xz | tar xf - -C /tmp/cases
(cd /tmp/cases && md5sum -c --quiet "$OLDPWD/$B/inputs.md5") > $R/inputs_check.txt 2>&1
echo "inputs differing from the development machine's: $(grep -c FAILED $R/inputs_check.txt)"
for i in 0 1 2; do
  GTEST_TOTAL_SHARDS=3 GTEST_SHARD_INDEX=$i VKSERVE_OP_CASES_DIR=/tmp/cases timeout 150 \
    $VK/bin/runtime_op_cases_test --gtest_filter='*gemm_fp16_*:*gemm_f16io_*:*tensorscatter*:*depthwise*' \
    > $R/op_shard$i.log 2>&1 &
done
wait
cat $R/op_shard*.log > $R/op_cases.log
echo "op cases: $(grep -c '^\[       OK' $R/op_cases.log) OK, $(grep '^\[  FAILED  \]' $R/op_cases.log | grep -c 'ms)$') failed, $(grep -c '^\[  SKIPPED' $R/op_cases.log) skipped; shards' last lines:"
for i in 0 1 2; do tail -1 $R/op_shard$i.log; done
grep '^\[  FAILED  \]' $R/op_cases.log | grep 'ms)$' | head -20

echo "== CNNs FP32 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/cnn32 MODELS="mobilenet_v2 efficientnet_b0" BATCHES="1 32" \
  timeout 120 bash $VK/run_on_device.sh > $R/cnn32.log 2>&1
tail -5 $R/cnn32/models.md
echo "== CNNs FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/cnn16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="mobilenet_v2 efficientnet_b0" BATCHES="1 32" \
  timeout 60 bash $VK/run_on_device.sh > $R/cnn16.log 2>&1
tail -5 $R/cnn16/models.md
for p in $R/*/profile_*.json; do
  python3 benchmarks/models/profile_ops.py "$p" 25 > "${p%.json}.txt" 2>&1 && rm -f "$p"
done
for p in $R/*/profile_*.txt; do echo "-- $p"; head -8 "$p"; done

echo "== gemm_bench $(date -u +%FT%TZ) SM $(clock)"
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --warmup 0.5 --repeat 20"
{
  echo "-- FP32"; timeout 60 $G
  echo "-- FP32, B a weight"; timeout 20 $G 'gemv|head' --weights
  echo "-- FP16, B a weight (stored in fp16)"; timeout 60 $G --precision FP16 --weights
  echo "-- float16 models"; timeout 60 $G --float16
  echo "-- cuBLAS (PyTorch $(python3 -c 'import torch; print(torch.__version__)'))"
  timeout 60 python3 benchmarks/ops/gemm_peers.py
} > $R/gemm.txt 2>&1
grep -E "^--|square_4096|gemv_4096|bert_b8_ffn|fp16|tf32" $R/gemm.txt | head -40

echo "== attention FP16 $(date -u +%FT%TZ) SM $(clock)"
timeout 70 python3 benchmarks/ops/attention_bench.py $VK/bin/vkserve --precision FP16 \
  --kinds chosen,coopmat,unfused --warmup 0.5 --repeat 20 > $R/attention_fp16.txt 2>&1
timeout 40 python3 benchmarks/ops/attention_bench.py --peers > $R/attention_peers.txt 2>&1
cat $R/attention_fp16.txt $R/attention_peers.txt | tail -30
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
rm -rf $R/*/export.log $R/*/summarize.err
tar cf - -C $OUT r | xz -1 > $OUT/call2.tar.xz && rm -rf $R
