#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The vkserve Authors.
#
# Two vkserve builds on the same models in one run, interleaved (baseline,
# new, baseline, new, ... per configuration) so that both share every
# machine state, beside the PyTorch peers (CUDA graphs and torch.compile)
# timed in the same run: whether a change moved the GPU figures, and by how
# much against the spread of a build timed twice.
# Environment: CONFIGS ("MODEL:BATCH ...", default "resnet50:1 resnet50:32
# bert-base:8"), PRECISIONS ("FP32 FP16"), ROUNDS (3: timings of each build
# per configuration), REPEAT (30), WARMUP (2 s of untimed runs at the same
# shape before each timing), PEERS_TIMING=0 to skip the peers; NEW_FLAGS and
# BASELINE_FLAGS (vkserve infer flags of each build: one binary twice with
# e.g. NEW_FLAGS="--accumulation FP16" compares two settings); ACCURACY=1
# adds the new build's error against FP32 precision per configuration below
# FP32 (`vkserve infer --compare`, accuracy.txt), PROFILE=1 a profiled run of
# the new build per configuration, summed per op type
# (profile_<model>_<batch>_<precision>.txt, profile_ops.py).
# Writes OUT/compare.md (the table), compare.jsonl (every timing),
# peers.jsonl, vkserve.log, environment.txt.
set -uo pipefail
USAGE="benchmarks/models/compare.sh --vkserve NEW --baseline OLD --out DIR --peers PY"
B=$(cd "$(dirname "$0")" && pwd)
source "$B/../common.sh" || exit 1
parse_args "$@" || exit 2
need_peers "exporting the models"
[ -n "$BASELINE" ] || { usage; exit 2; }
CONFIGS=${CONFIGS:-"resnet50:1 resnet50:32 bert-base:8"}
PRECISIONS=${PRECISIONS:-"FP32 FP16"}
ROUNDS=${ROUNDS:-3}
REPEAT=${REPEAT:-30}
WARMUP=${WARMUP:-2}
CLOCK_FIELDS=clocks.sm,clocks.max.sm
mkdir -p /tmp/models

{
  describe_machine "$VKSERVE"
  echo "new: $VKSERVE ${NEW_FLAGS:-}"
  echo "baseline: $BASELINE ${BASELINE_FLAGS:-}"
  echo "SM clock before (current, max): $(clock)"
} > "$OUT/environment.txt" 2>&1

models=$(for c in $CONFIGS; do echo "${c%%:*}"; done | sort -u)
for m in $models; do
  [ -f "/tmp/models/$m.onnx" ] ||
    python3 "$PEERS" export "$m" "/tmp/models/$m.onnx" --opset 17 >> "$OUT/export.log" 2>&1 ||
    { echo "export of $m failed"; cat "$OUT/export.log"; exit 1; }
done

# time BUILD BIN MODEL BATCH PRECISION ROUND [FLAGS...]: one timing,
# appended to the log under a header the summary reads.
time_one() {
  echo "== $1 $3 batch $4 $5 round $6 clock $(clock)" >> "$OUT/vkserve.log"
  "$2" infer "/tmp/models/$3.onnx" --dim N="$4" --precision "$5" --repeat "$REPEAT" \
    --warmup "$WARMUP" --pipeline-cache "/tmp/pc_$1.bin" "${@:7}" >> "$OUT/vkserve.log" 2>&1
}
read -r -a new_flags <<< "${NEW_FLAGS:-}"
read -r -a baseline_flags <<< "${BASELINE_FLAGS:-}"

for c in $CONFIGS; do
  m=${c%%:*} n=${c##*:}
  for p in $PRECISIONS; do
    for r in $(seq "$ROUNDS"); do
      time_one baseline "$BASELINE" "$m" "$n" "$p" "$r" "${baseline_flags[@]}"
      time_one new "$VKSERVE" "$m" "$n" "$p" "$r" "${new_flags[@]}"
    done
  done
done
for c in $CONFIGS; do
  m=${c%%:*} n=${c##*:}
  for p in $PRECISIONS; do
    if [ "${ACCURACY:-0}" = 1 ] && [ "$p" != FP32 ]; then
      echo "== $m batch $n $p ${NEW_FLAGS:-}" >> "$OUT/accuracy.txt"
      "$VKSERVE" infer "/tmp/models/$m.onnx" --dim N="$n" --precision "$p" --compare \
        --pipeline-cache /tmp/pc_new.bin "${new_flags[@]}" 2>&1 | grep "^compare" >> "$OUT/accuracy.txt"
    fi
    if [ "${PROFILE:-0}" = 1 ]; then
      trace="$OUT/profile_${m}_${n}_$p.json"
      "$VKSERVE" infer "/tmp/models/$m.onnx" --dim N="$n" --precision "$p" --repeat "$REPEAT" \
        --warmup "$WARMUP" --pipeline-cache /tmp/pc_new.bin --profile "$trace" "${new_flags[@]}" \
        > /dev/null 2>&1 && python3 "$B/profile_ops.py" "$trace" 15 > "${trace%.json}.txt"
    fi
  done
done
if [ "${PEERS_TIMING:-1}" != 0 ]; then
  for m in $models; do
    batches=$(for c in $CONFIGS; do [ "${c%%:*}" = "$m" ] && echo "${c##*:}"; done | tr '\n' ' ')
    # One process per dtype: in one process, torch.compile of the fp16 model
    # after the fp32 one failed on BERT (operands of both dtypes in one graph).
    for dtype in $(for p in $PRECISIONS; do [ "$p" = FP16 ] && echo fp16 || echo fp32; done); do
      python3 "$PEERS" time "$m" --batch $batches --dtype "$dtype" --compile \
        >> "$OUT/peers.jsonl" 2>> "$OUT/peers.err"
    done
  done
fi
echo "SM clock at the end: $(clock)" >> "$OUT/environment.txt"
python3 "$B/compare_summary.py" "$OUT" > "$OUT/compare.md"
cat "$OUT/environment.txt" "$OUT/compare.md"
if [ -f "$OUT/accuracy.txt" ]; then cat "$OUT/accuracy.txt"; fi
