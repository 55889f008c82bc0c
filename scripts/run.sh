#!/usr/bin/env bash
# Builds vkserve and runs it. With no arguments it serves the embedded default
# configuration: the example model repository on 127.0.0.1:8001 (gRPC), on the
# GPU if there is one, else lavapipe. Usage: scripts/run.sh [vkserve arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target vkserve
exec "$BUILD_DIR/vkserve" "$@"
