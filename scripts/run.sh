#!/usr/bin/env bash
# Builds vkserve and runs it. With no arguments it serves the embedded default
# configuration once the server exists; today it lists the Vulkan devices.
# Usage: scripts/run.sh [vkserve arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target vkserve
if [ $# -eq 0 ]; then set -- devices; fi
exec "$BUILD_DIR/vkserve" "$@"
