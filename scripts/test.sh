#!/usr/bin/env bash
# scripts/test.sh — install what is missing, build, and run every test: once normally, once under
# AddressSanitizer + UndefinedBehaviorSanitizer (and without the static front), once without the Linux
# backend (the portable build), then the fuzz targets for a bounded time.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh
jobs=$(nproc)

echo "== build and test (release)"
bash scripts/build.sh build
(cd build && ctest --output-on-failure -j"$jobs")

echo "== build and test (ASan + UBSan; without the static front, so cordon-full's own path answers every run)"
bash scripts/build.sh build-san -DCORDON_SANITIZE=ON -DCORDON_FRONT=OFF -DCMAKE_BUILD_TYPE=Debug
(cd build-san && ctest --output-on-failure -j"$jobs")

echo "== build and test without the Linux backend (what a macOS build compiles: docs/install.md)"
bash scripts/build.sh build-portable -DCORDON_WITH_LINUX=OFF -DCMAKE_BUILD_TYPE=Debug
(cd build-portable && ctest --output-on-failure -j"$jobs")

if ls tests/fuzz/fuzz_*.c >/dev/null 2>&1; then
  echo "== fuzz (bounded)"
  CC=clang bash scripts/build.sh build-fuzz -DCORDON_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link,address,undefined"
  bash tests/fuzz/run.sh build-fuzz "${CORDON_FUZZ_SECONDS:-30}"
fi
echo "== all tests passed"
