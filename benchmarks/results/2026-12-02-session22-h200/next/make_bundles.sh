#!/bin/bash
# Builds the binaries next/run.sh and next/serving.sh time and packs them
# (from the repository root, on the development machine; .bundle* is
# git-ignored). Every variant is HEAD with one change, so nothing else
# differs between them:
#   .bundle-next:    vkserve (HEAD), vkserve_x8 (+ im2col_x8.patch),
#                    vkserve_all (+ copy_every_window.patch), vkserve_nocopy
#                    (no im2col copy at all), runtime_op_cases_test and
#                    runtime_op_cases_test_x8 with the fp16 copy cases
#                    (references made here on lavapipe), peers.py,
#                    profile_ops.py;
#   .bundle-serving: vkserve (HEAD), vkserve_nopace (the batcher's pacing
#                    off), vkserve_load, vkserve_grpc_floor, the serving
#                    scripts, peers.py, tinynet.onnx.
set -euo pipefail
N=benchmarks/results/2026-12-02-session22-h200/next
SHARED=${SHARED:-../shared}
BIN=/tmp/nextbins
rm -rf "$BIN" && mkdir -p "$BIN"
build() {  # build NAME TARGET...: the targets as the tree is now, copied as NAME*
  cmake --build build --target "${@:2}" > /dev/null
  cp build/vkserve "$BIN/$1"
}
cmake --build build --target vkserve runtime_op_cases_test vkserve_load vkserve_grpc_floor > /dev/null
cp build/vkserve "$BIN/vkserve"
cp build/tests/ops/runtime_op_cases_test "$BIN/runtime_op_cases_test"
cp build/benchmarks/vkserve_load build/benchmarks/vkserve_grpc_floor "$BIN/"
git apply "$N/im2col_x8.patch"
build vkserve_x8 vkserve runtime_op_cases_test
cp build/tests/ops/runtime_op_cases_test "$BIN/runtime_op_cases_test_x8"
git apply -R "$N/im2col_x8.patch"
git apply "$N/copy_every_window.patch"
build vkserve_all vkserve
git apply -R "$N/copy_every_window.patch"
sed -i 's/^constexpr int64_t kIm2colCopyMinOutputs = 128;/constexpr int64_t kIm2colCopyMinOutputs = int64_t{1} << 62;/' runtime/ops/conv.cc
build vkserve_nocopy vkserve
git checkout runtime/ops/conv.cc
sed -i 's/Form(now, pacing_.SendBy(gpu, BatchLimit()), &form_wake)/Form(now, absl::InfinitePast(), \&form_wake)/' server/dynamic_batcher.cc
build vkserve_nopace vkserve
git checkout server/dynamic_batcher.cc
cmake --build build --target vkserve runtime_op_cases_test > /dev/null  # back to HEAD
git diff --quiet -- runtime server shaders || { echo "make_bundles.sh: the sources are not back at HEAD" >&2; exit 1; }

pack() {  # pack NAME DIR PROGRAM...: bundles the programs into .bundle-NAME/bundle.tar.xz
  local name=$1 dir=$2
  shift 2
  rm -rf "/tmp/$name" && mkdir -p "/tmp/$name"
  for try in 1 2 3; do
    "$SHARED/device/bundle" "/tmp/$name/$dir" "$@" > /dev/null 2>&1 || true
    [ -f "/tmp/$name/$dir/env.sh" ] && [ -f "/tmp/$name/$dir/lib/libvulkan.so.1" ] && break
  done
  strip "/tmp/$name/$dir/bin/"* 2>/dev/null || true
}
pack next .vkn "$BIN/vkserve" "$BIN/vkserve_x8" "$BIN/vkserve_all" "$BIN/vkserve_nocopy" \
  "$BIN/runtime_op_cases_test" "$BIN/runtime_op_cases_test_x8"
cp "$SHARED/device/peers.py" benchmarks/models/profile_ops.py /tmp/next/.vkn/
mkdir -p /tmp/next/.vkn/cases
for c in build/op_cases/gemm_f16io_cm*_conv_*; do
  case "$c" in *_copy*|*_to_1x1|*_1x1_add_relu|*_group2) cp -r "$c" /tmp/next/.vkn/cases/ ;; esac
done
mkdir -p .bundle-next
tar cf - -C /tmp/next .vkn | xz -T2 -6 > .bundle-next/bundle.tar.xz

pack serving .vks "$BIN/vkserve" "$BIN/vkserve_nopace" "$BIN/vkserve_load" "$BIN/vkserve_grpc_floor"
cp "$SHARED/device/peers.py" benchmarks/server/run_batching_on_device.sh \
  benchmarks/server/run_overhead_on_device.sh benchmarks/device_common.sh /tmp/serving/.vks/
cp config/examples/repository/tinynet/1/model.onnx /tmp/serving/.vks/tinynet.onnx
mkdir -p .bundle-serving
tar cf - -C /tmp/serving .vks | xz -T2 -6 > .bundle-serving/bundle.tar.xz
ls -la .bundle-next/bundle.tar.xz .bundle-serving/bundle.tar.xz
