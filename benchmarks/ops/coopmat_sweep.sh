#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# The tensor-core cost model's figures per cooperative-matrix extension, in
# one device call (about 2-3 minutes on an H100): the GPU's name, driver and
# SM clock; a few seconds of a 4096^3 float16 GEMM to bring the clocks up
# (its TFLOP/s printed, through the extension `auto` picks); then
# coopmat_sweep.py -- every tensor-core tile with 1, 2, 3 and 4 K splits
# pinned (3, which the engine never tries, for shapes whose last wave 2 and 4
# leave part empty), and the engine's own choice, on the square, ViT-B/16
# b32, BERT b8 and GPT-2 b8 shapes, in one model per setup -- through KHR and
# NV with fp32 sums and through KHR with fp16 sums, the clock after each; and
# fit_coopmat_cost.py over the three, with the table's residencies and with
# each tile's searched, which prints the gemm_coopmat_tiles.def rows to paste.
#
# OUT gets sweep-<ext>[-acc16].jsonl (the measurements), fit.txt and
# fit-resident.txt (the fits), gpu.csv, devices.txt, each setup's inspect
# and infer logs (the inspect log lists every GEMM pipeline's registers) and
# profile, and coopmat_sweep.log (everything printed); the models go to
# MODEL_DIR. Each sweep has its own time limit, so one that hangs leaves the
# others' results. Most of a sweep's time is compiling its pipelines on the
# host's CPUs: other work on them (a model export) can stretch a setup past
# SWEEP_TIMEOUT, and a sweep cut short writes nothing, so run it alone.
#
# Environment (a dry run on lavapipe: EXTENSIONS=auto ACC16_EXTENSION=auto
# SWEEP_ARGS="--quick --rounds 1 --warmup 0 --repeat 1" FIT_ARGS=--allow-emulated):
#   EXTENSIONS       the fp32-sum setups, in order (default "khr nv")
#   ACC16_EXTENSION  the fp16-sum setup's extension ("" for none; default khr)
#   SPLITS           the K splits pinned (default 1,2,3,4)
#   SWEEP_ARGS       more coopmat_sweep.py arguments
#   FIT_ARGS         more fit_coopmat_cost.py arguments
#   SWEEP_TIMEOUT    seconds each sweep may take (default 110)
#   MODEL_DIR        where the models go (default OUT; about 120 MB each)
set -uo pipefail
USAGE="benchmarks/ops/coopmat_sweep.sh --vkserve BIN --out DIR"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
exec > >(tee "$OUT/coopmat_sweep.log") 2>&1
EXTENSIONS=${EXTENSIONS-khr nv}
ACC16_EXTENSION=${ACC16_EXTENSION-khr}
SWEEP_TIMEOUT=${SWEEP_TIMEOUT:-110}
MODEL_DIR=${MODEL_DIR:-$OUT}
gpu() {
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
  else
    echo "no nvidia-smi"
  fi
}
started=$(date +%s)
since() { echo "$(($(date +%s) - started)) s"; }
echo "== date $(date -u +%FT%TZ)"
gpu | tee "$OUT/gpu.csv"
"$VKSERVE" devices > "$OUT/devices.txt" 2>&1
grep -E "^\[|selected|matrix|SMs|subgroup" "$OUT/devices.txt"

echo "== clock warm-up: 4096^3 float16, fp16 weights ($(since))"
if [[ " ${SWEEP_ARGS:-} " == *" --quick "* ]]; then
  warm="square_1024$ --warmup 0 --repeat 1"
else
  warm="square_4096$ --warmup 4 --repeat 10"
fi
# shellcheck disable=SC2086
python3 "$B/gemm_bench.py" "$VKSERVE" $warm --float16 --weights --out "$MODEL_DIR/warm"
echo "SM clock after the warm-up: $(gpu)" | tee -a "$OUT/gpu.csv"

sweep() {  # sweep EXTENSION ACCUMULATION
  echo "== sweep: $1, $2 sums ($(since))"
  # shellcheck disable=SC2086
  timeout "$SWEEP_TIMEOUT" python3 "$B/coopmat_sweep.py" "$VKSERVE" --matrix-extension "$1" \
    --accumulation "$2" --splits "${SPLITS:-1,2,3,4}" --out "$OUT" --model-dir "$MODEL_DIR" \
    ${SWEEP_ARGS:-}
  echo "sweep $1 $2 rc=$?; SM clock after: $(gpu)" | tee -a "$OUT/gpu.csv"
}
for extension in $EXTENSIONS; do sweep "$extension" FP32; done
[ -z "$ACC16_EXTENSION" ] || sweep "$ACC16_EXTENSION" FP16

echo "== fit ($(since))"
sweeps=$(ls "$OUT"/sweep-*.jsonl 2> /dev/null)
if [ -z "$sweeps" ]; then
  echo "no sweep finished"
  exit 1
fi
# shellcheck disable=SC2086
python3 "$B/fit_coopmat_cost.py" $sweeps ${FIT_ARGS:-} > "$OUT/fit.txt" 2>&1
# shellcheck disable=SC2086
python3 "$B/fit_coopmat_cost.py" $sweeps --search-resident ${FIT_ARGS:-} \
  > "$OUT/fit-resident.txt" 2>&1
cat "$OUT/fit.txt"
echo "== with each tile's residency searched (fit-resident.txt): the rows"
grep -E "^== |^relative|^[0-9a-z]+x[0-9a-z]+ +[0-9]+ |^VKSERVE" "$OUT/fit-resident.txt"
echo "== done ($(since))"
