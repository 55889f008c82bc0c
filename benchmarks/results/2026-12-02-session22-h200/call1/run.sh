#!/bin/bash
# Session 22, call 1: session 21's prepared call (results/2026-11-29-
# session21-h200/next/), with gRPC's floor also timed with several
# completion queues and under 64 clients. Two patches to the convolution
# path (in ../../2026-11-29-session21-h200/next/), each a build of the
# repository at commit f302099, bundled as .bundle-call1/bundle.tar.xz:
#   bin/vkserve_base  the commit alone
#   bin/vkserve_pw    + pointwise_raw.patch: fp16 pointwise rows read as raw
#                     8-byte halves (no fp16 -> fp32 -> fp16 round trip),
#                     im2col taps packed as they load
#   bin/vkserve_s2    + strided_pointwise.patch: a strided 1x1 without pads
#                     (ResNet's downsampling shortcuts) copies its pixels out
#                     and runs the pointwise product (conv.cc)
#   bin/vkserve_both  + both
#   bin/vkserve_grpc_floor  (benchmarks/server/grpc_floor.cc, the commit)
# Each patch's op cases pass on lavapipe. Call 6 showed the im2col loader
# costs 35-67 % of a convolution's time; the three strided 1x1s took 863 us
# of resnet50 b32's 7.15 ms of convolutions (call 5). ResNet-50's
# convolutions at b32 and resnet50 b32 / b1 FP16, each build twice; then the
# GEMV's K split swept; then gRPC's floor by server API.
set -uo pipefail
source benchmarks/device_common.sh
device_call_begin call1 480
$T 40 python3 $VK/peers.py export resnet50 /tmp/r50.onnx --opset 17 > $R/export.log 2>&1 &
EXPORT=$!
C="benchmarks/ops/resnet_convs.py --batch 32 --float16"
$T 30 python3 $C $VK/bin/vkserve_base --warmup 4 --repeat 3 > /dev/null 2>&1
for round in 1 2; do
  for bin in vkserve_base vkserve_pw vkserve_s2 vkserve_both; do
    echo "== $bin round $round SM $(clock | cut -d, -f1)"
    $T 25 python3 $C $VK/bin/$bin --warmup 1 --repeat 5 --out /tmp/rc_$bin 2>&1
  done
done | tee $R/convs.txt
wait $EXPORT
for n in 32 1; do
  for bin in vkserve_base vkserve_pw vkserve_s2 vkserve_both vkserve_base vkserve_pw vkserve_s2 vkserve_both; do
    echo "-- resnet50 b$n FP16 $bin SM $(clock | cut -d, -f1): $($T 20 $VK/bin/$bin infer /tmp/r50.onnx --dim N=$n --precision FP16 --repeat 30 --warmup 2 2>&1 | grep '^timing' | sed 's/.*gpu-compute/gpu-compute/')"
  done
done | tee $R/models.txt
# GEMV (issue 11: 56 % of the copy's traffic in session 21): the K splits,
# the cost model's 4 against 1, 2 and 8, each with its reduce pass.
for plan in auto gemv/1 gemv/2 gemv/4 gemv/8; do
  echo "-- gemv $plan SM $(clock | cut -d, -f1)"
  $T 20 python3 benchmarks/ops/gemm_bench.py $VK/bin/vkserve_base --weights 'gemv_4096' --warmup 1 \
    --repeat 30 $( [ $plan = auto ] || echo --plan $plan ) | tail -1
done | tee $R/gemv.txt
# Issue 12: gRPC's own empty call by server API on this machine
# (bin/vkserve_grpc_floor; results/2026-11-29-grpc-floor-dev.md has the
# development machine's), each mode in its own process, twice: one client
# after each idle gap, then 64 clients back to back.
for round in 1 2; do
  for mode in callback sync "async --pollers 2" "async --pollers 1" \
      "async --pollers 1 --queues 4" "async --pollers 1 --queues 16" spin; do
    echo "-- $mode"
    $T 60 $VK/bin/vkserve_grpc_floor --calls 2000 --gaps 0,700,2000 --clients 64 --seconds 2 --modes $mode | tail -4
  done
done | tee $R/grpc_floor.txt
device_call_end
