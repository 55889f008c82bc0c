#!/bin/bash
# Session 15, device call 3 (build: chunked readback, depthwise Conv on fp16
# tensors, TensorScatter's fix; `vkserve infer --readback-whole` is the old
# readback, the A/B).
#  1. GPT-2 s128 b1/b8 at FP32 (PyTorch beside) and FP16, chunked readback
#     and whole; the b8 logits of both readbacks compared bit for bit.
#  2. MobileNet-V2 and EfficientNet-B0 at FP32 (PyTorch beside) and FP16,
#     per-op profiles at batch 1.
#  3. gemm_bench (4096^3, GEMV) and cuBLAS.
# Everything it writes is packed into one file (the device returns 8 files),
# also by a watchdog at 400 s should a step run long (the call's limit is
# what device time was left: 440 s).
set -uo pipefail
source benchmarks/device_common.sh
B=.bundle-c3
device_unpack_bundle $B
device_env $VK/env.sh
R=$OUT/r; mkdir -p $R
sample_clocks $R/clocks.csv 1000 csv "timestamp,clocks.sm,power.draw,utilization.gpu"
T="timeout -k 5"
pack() { tar cf - -C $OUT r | xz -1 > $OUT/call3.tar.xz.part && mv $OUT/call3.tar.xz.part $OUT/call3.tar.xz; }
( sleep 400; pack ) > /dev/null 2>&1 &
WATCHDOG=$!
echo "== date $(date -u +%FT%TZ) SM clock: $(clock)"

echo "== GPT-2 FP32, chunked readback $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/gpt32 MODELS="gpt2" BATCHES="1 8" DTYPES="fp32 fp16" $T 100 bash $VK/run_on_device.sh > $R/gpt32.log 2>&1
tail -3 $R/gpt32/models.md
echo "== GPT-2 FP32, whole readback $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/gpt32w PEERS=0 VKSERVE_FLAGS="--readback-whole" MODELS="gpt2" BATCHES="8" $T 25 bash $VK/run_on_device.sh > $R/gpt32w.log 2>&1
tail -1 $R/gpt32w/models.md
echo "== GPT-2 FP16, chunked and whole $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/gpt16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="gpt2" BATCHES="1 8" $T 35 bash $VK/run_on_device.sh > $R/gpt16.log 2>&1
tail -2 $R/gpt16/models.md
OUT=$R/gpt16w PEERS=0 VKSERVE_FLAGS="--precision FP16 --readback-whole" MODELS="gpt2" BATCHES="8" $T 25 bash $VK/run_on_device.sh > $R/gpt16w.log 2>&1
tail -1 $R/gpt16w/models.md
echo "== GPT-2 b8 logits, chunked vs whole $(date -u +%FT%TZ)"
$T 15 $VK/bin/vkserve infer /tmp/models/gpt2.onnx --dim N=8 --output-dir /tmp/chunked --pipeline-cache /tmp/pc.bin > /dev/null 2>&1
$T 15 $VK/bin/vkserve infer /tmp/models/gpt2.onnx --dim N=8 --readback-whole --output-dir /tmp/whole --pipeline-cache /tmp/pc.bin > /dev/null 2>&1
python3 - <<'PY' 2>&1 | tee $R/chunked_vs_whole.txt
import glob, os, numpy as np
for f in sorted(glob.glob('/tmp/whole/*.npy')):
    a = np.load(f); b = np.load('/tmp/chunked/' + os.path.basename(f))
    print(os.path.basename(f), a.shape, a.dtype, 'identical bytes' if a.tobytes() == b.tobytes() else 'DIFFER')
PY

echo "== CNNs FP32 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/cnn32 MODELS="mobilenet_v2 efficientnet_b0" BATCHES="1 32" $T 90 bash $VK/run_on_device.sh > $R/cnn32.log 2>&1
tail -4 $R/cnn32/models.md
echo "== CNNs FP16 $(date -u +%FT%TZ) SM $(clock)"
OUT=$R/cnn16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="mobilenet_v2 efficientnet_b0" BATCHES="1 32" \
  $T 35 bash $VK/run_on_device.sh > $R/cnn16.log 2>&1
tail -4 $R/cnn16/models.md
for p in $R/*/profile_*.json; do
  python3 benchmarks/models/profile_ops.py "$p" 25 > "${p%.json}.txt" 2>&1 && rm -f "$p"
done

echo "== gemm_bench $(date -u +%FT%TZ) SM $(clock)"
G="python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve --warmup 0.5 --repeat 20"
S='square_4096|gemv_4096'
{
  echo "-- FP32"; $T 20 $G "$S"
  echo "-- FP32, B a weight"; $T 12 $G 'gemv_4096' --weights
  echo "-- FP16, B a weight (stored in fp16)"; $T 20 $G "$S" --precision FP16 --weights
  echo "-- cuBLAS (PyTorch $(python3 -c 'import torch; print(torch.__version__)'))"
  $T 30 python3 benchmarks/ops/gemm_peers.py "$S"
} > $R/gemm.txt 2>&1
cat $R/gemm.txt | grep -v "^\s*$" | head -50

echo "== SM clock at end: $(clock) $(date -u +%FT%TZ)"
stop_clock_sampling
rm -rf $R/*/export.log $R/*/summarize.err
kill $WATCHDOG 2>/dev/null
pack && rm -rf $R
