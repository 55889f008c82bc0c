#!/bin/bash
# Session 15, device call 1 (first device time since session 12; build 97d683f).
# The machine is now an H200. One broad baseline of the current build:
#  1. 422 op cases on the real GPU: every FP16 / float16 case (the GEMM
#     engine's tensor-core families, the fp16-I/O tensor-core attention and the
#     fp16 pools, never run on tensor cores before) and every attention,
#     DFT/STFT/MelWeightMatrix, TensorScatter, LinearAttention, FlexAttention,
#     TfIdfVectorizer and training-BatchNormalization case. The cases are
#     regenerated here by gen_cases.py (deterministic), their inputs checked
#     against the development machine's checksums, and the onnxruntime-node
#     references carried in expected.tar.xz.
#  2. resnet50, efficientnet_b0, mobilenet_v2 (b1, b32) and bert-base, gpt2
#     (s128, b1, b8) at FP32 beside PyTorch eager / CUDA graph fp32 and fp16;
#     then the same at FP16.
#  3. FP16 vs FP32 accuracy (--compare) at the batched sizes.
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-s15
device_unpack_bundle $B
device_env $VK/env.sh
sample_clocks $OUT/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
$VK/bin/vkserve devices 2>&1 | head -20 > $OUT/devices.txt; head -20 $OUT/devices.txt

echo "== op cases $(date -u +%FT%TZ)"
python3 tests/ops/gen_cases.py /tmp/cases --filter "$(cat $B/sel_regex)" 2>&1 | tail -1
xz -dc $B/expected.tar.xz | tar xf - -C /tmp/cases
(cd /tmp/cases && md5sum -c --quiet "$OLDPWD/$B/inputs.md5") > $OUT/inputs_check.txt 2>&1
echo "inputs differing from the development machine's: $(grep -c FAILED $OUT/inputs_check.txt)"
run_cases() {  # NAME TIMEOUT FILTER
  VKSERVE_OP_CASES_DIR=/tmp/cases timeout $2 $VK/bin/runtime_op_cases_test --gtest_filter="$3" > $OUT/op_$1.log 2>&1
  echo "op cases $1 rc=$?: $(grep -c '^\[       OK' $OUT/op_$1.log) OK, $(grep -c '^\[  FAILED  \]' $OUT/op_$1.log) failed, $(grep -c '^\[  SKIPPED' $OUT/op_$1.log) skipped"
  grep -E "^\[  FAILED" $OUT/op_$1.log | sort -u | head -20
}
run_cases other 80 '-*gemm_fp16_*:*gemm_f16io_*'
run_cases gemm 100 '*gemm_fp16_*:*gemm_f16io_*'

echo "== CNNs FP32 $(date -u +%FT%TZ) SM $(clock)"
OUT=$OUT/cnn32 MODELS="resnet50 efficientnet_b0 mobilenet_v2" BATCHES="1 32" \
  timeout 170 bash $VK/run_on_device.sh > $OUT/cnn32.log 2>&1
tail -8 $OUT/cnn32/models.md
echo "== transformers FP32 $(date -u +%FT%TZ) SM $(clock)"
OUT=$OUT/tf32 MODELS="bert-base gpt2" BATCHES="1 8" timeout 120 bash $VK/run_on_device.sh > $OUT/tf32.log 2>&1
tail -6 $OUT/tf32/models.md
echo "== FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$OUT/tf16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="bert-base gpt2" BATCHES="1 8" \
  timeout 60 bash $VK/run_on_device.sh > $OUT/tf16.log 2>&1
tail -6 $OUT/tf16/models.md
OUT=$OUT/cnn16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="resnet50 efficientnet_b0 mobilenet_v2" BATCHES="1 32" \
  timeout 100 bash $VK/run_on_device.sh > $OUT/cnn16.log 2>&1
tail -8 $OUT/cnn16/models.md
echo "== FP16 vs FP32 $(date -u +%FT%TZ) SM $(clock)"
for m in bert-base:8 gpt2:8 resnet50:32 efficientnet_b0:32 mobilenet_v2:32; do
  n=${m#*:}; m=${m%:*}
  [ -f /tmp/models/$m.onnx ] && timeout 25 $VK/bin/vkserve infer /tmp/models/$m.onnx --dim N=$n \
    --precision FP16 --compare --pipeline-cache /tmp/pc.bin 2>&1 | grep -E "compare" | sed "s/^/$m b$n: /"
done | tee $OUT/compare.txt
rm -f $OUT/*/summarize.err $OUT/*/export.log
for p in $OUT/*/profile_*.json; do
  python3 benchmarks/models/profile_ops.py "$p" 25 > "${p%.json}.txt" 2>&1 && rm -f "$p"
done
echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
