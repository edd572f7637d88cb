#!/usr/bin/env bash
# scripts/build.sh [BUILD_DIR [CMAKE_ARGS…]] — install missing packages, configure and build.
set -eu
cd "$(dirname "$0")/.."
bash scripts/deps.sh
dir=${1:-build}
shift || true
cmake -S . -B "$dir" "$@" >/dev/null
cmake --build "$dir" -j"$(nproc)" >/dev/null
