#!/bin/bash
# Session 18, device call 1 (build: HEAD 96b0f1b, shaders optimized by glslc -O
# as always, and the same build with VKSERVE_SHADER_OPTIMIZE=OFF, bin/vkserve-noopt).
#  1. GEMM and GEMV kernels FP32 and FP16 (B a weight), both builds: the fp16
#     GEMV after the F16_IO rounding change, and whether spirv-opt's unrolled
#     SPIR-V (1.5 MB for the 128x128 tile against 55 KB) buys anything on the
#     NVIDIA driver, which unrolls [[unroll]] loops itself.
#  2. resnet50, efficientnet_b0, mobilenet_v2 (b1, b32), bert-base and gpt2
#     (b1, b8) at FP32 and FP16, both builds (no peers: an A/B).
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s18
device_unpack_bundle $B
device_env $VK/env.sh
# A second bundle folder that differs only in bin/vkserve.
cp -as "$VK" /tmp/vkn && rm /tmp/vkn/bin/vkserve && cp "$VK/bin/vkserve-noopt" /tmp/vkn/bin/vkserve
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call1.tar.xz.part && mv $OUT/call1.tar.xz.part $OUT/call1.tar.xz; }
( sleep ${WATCHDOG_S:-520}; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
S='square_4096|bert_b8_qkv|gpt2_b8_qkv|gpt2_b8_lm_head|gemv_4096|gpt2_decode_qkv'
for b in O:$VK noopt:/tmp/vkn; do
  name=${b%%:*} dir=${b#*:}
  G="python3 benchmarks/ops/gemm_bench.py $dir/bin/vkserve --warmup 0.5 --repeat 20 --weights"
  echo "== GEMM $name $(date -u +%FT%TZ) SM $(clock)"
  { echo "-- FP32 $name"; $T 50 $G "$S"; echo "-- FP16 $name"; $T 50 $G "$S" --precision FP16; } > $R/gemm_$name.txt 2>&1
  grep -v "^\s*$" $R/gemm_$name.txt | head -30
done
for b in O:$VK noopt:/tmp/vkn; do
  name=${b%%:*} dir=${b#*:}
  M="bash $dir/run_on_device.sh"
  for p in FP32 FP16; do
    echo "== CNNs $name $p $(date -u +%FT%TZ) SM $(clock)"
    OUT=$R/cnn_${name}_$p PEERS=0 VKSERVE_FLAGS="--precision $p" MODELS="resnet50 efficientnet_b0 mobilenet_v2" \
      BATCHES="1 32" $T 80 $M > $R/cnn_${name}_$p.log 2>&1
    tail -3 $R/cnn_${name}_$p/models.md
    echo "== transformers $name $p $(date -u +%FT%TZ) SM $(clock)"
    OUT=$R/tf_${name}_$p PEERS=0 VKSERVE_FLAGS="--precision $p" MODELS="bert-base gpt2" \
      BATCHES="1 8" $T 80 $M > $R/tf_${name}_$p.log 2>&1
    tail -2 $R/tf_${name}_$p/models.md
  done
done
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
for p in $R/*/profile_*.json; do
  python3 benchmarks/models/profile_ops.py "$p" 25 > "${p%.json}.txt" 2>&1 && rm -f "$p"
done
rm -rf $R/*/export.log $R/*/summarize.err
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
