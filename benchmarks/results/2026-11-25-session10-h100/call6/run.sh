#!/bin/bash
# Session 10, device call 6: BERT-base and GPT-2 (s128, b1 and b8) at FP32
# and FP16 with the wave cost model and raw fp16 weight loads, PyTorch in
# the same call.
set -uo pipefail
mkdir -p /tmp/vk; xz -dc .bundle-c6/bundle.tar.xz | tar xf - -C /tmp/vk; VK=/tmp/vk/.bundle-s10
BASE=$OUT
OUT=$BASE/fp32 MODELS="bert-base gpt2" BATCHES="1 8" bash $VK/run_on_device.sh > $BASE/fp32.log 2>&1
OUT=$BASE/fp16 PEERS=0 VKSERVE_FLAGS="--precision FP16" MODELS="bert-base gpt2" BATCHES="1 8" bash $VK/run_on_device.sh > $BASE/fp16.log 2>&1
tail -20 $BASE/fp32/models.md; tail -12 $BASE/fp16/models.md
