#!/usr/bin/env bash
# Installs everything vkserve needs to build, run and test on Debian 12.
# Idempotent: exits in well under a second when everything is already present.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libgrpc++-dev protobuf-compiler protobuf-compiler-grpc libprotobuf-dev
  flatbuffers-compiler libflatbuffers-dev
  libvulkan-dev vulkan-tools glslc mesa-vulkan-drivers vulkan-validationlayers
  libabsl-dev libboost-dev libspdlog-dev libfmt-dev prometheus-cpp-dev libcli11-dev
  libonnx-dev libsystemd-dev libssl-dev openssl nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev lld
  python3-grpcio python3-numpy python3-onnx python3-protobuf
  prometheus
  lintian python3-jsonschema python3-yaml

)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Node.js: use the machine's own if present (it may come from outside Debian), else Debian's.
if ! command -v npm >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
fi

# onnxruntime-node gives independent reference outputs for tests (CPU only).
if [ ! -f tests/reference/node_modules/onnxruntime-node/package.json ]; then
  echo "setup: installing onnxruntime-node"
  (cd tests/reference && ONNXRUNTIME_NODE_INSTALL_CUDA=skip npm install --no-audit --no-fund --silent)
fi
