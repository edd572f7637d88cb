#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD_DIR SECONDS — runs every fuzz_* target in BUILD_DIR for SECONDS each, starting
# from its seed corpus tests/fuzz/corpus/<name>/ (copied to a scratch directory, so the tree stays clean)
# and its dictionary tests/fuzz/<name>.dict when there is one.
# Fails on any crash, leak, timeout or out-of-memory. Exit 77 (skip) when BUILD_DIR has no fuzz targets.
# Build the targets with clang:
#   CC=clang CFLAGS=-fsanitize=fuzzer-no-link cmake -S . -B build-fuzz -DCORDON_FUZZ=ON -DCORDON_SANITIZE=ON
#   cmake --build build-fuzz --target fuzz_sbpl
set -u
build=$(cd "${1:?usage: run.sh BUILD_DIR SECONDS}" && pwd) || exit 2
seconds=${2:?usage: run.sh BUILD_DIR SECONDS}
here=$(cd "$(dirname "$0")" && pwd)

shopt -s nullglob
targets=("$build"/fuzz_*)
if [ ${#targets[@]} -eq 0 ]; then
  echo "no fuzz_* targets in $build (configure with CC=clang -DCORDON_FUZZ=ON)"
  exit 77
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/cordon-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
passed=0 failed=0
for bin in "${targets[@]}"; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  corpus="$scratch/$name"
  mkdir -p "$corpus"
  if [ -d "$here/corpus/$name" ]; then cp "$here/corpus/$name"/* "$corpus"/ 2>/dev/null; fi
  dict=()
  if [ -f "$here/$name.dict" ]; then dict=(-dict="$here/$name.dict"); fi
  log="$scratch/$name.log"
  echo "== $name: ${seconds}s from $(ls "$corpus" | wc -l) seeds"
  if (cd "$scratch" && ASAN_OPTIONS=detect_leaks=1 "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 "${dict[@]}" "$corpus") >"$log" 2>&1; then
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log" | sed 's/^/   /'
    passed=$((passed + 1))
  else
    echo "   FAILED: $name (log follows; reproducer saved as crash-*/leak-*/timeout-* in the scratch dir)"
    tail -n 60 "$log"
    for f in "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-* "$scratch"/oom-*; do
      [ -e "$f" ] && cp "$f" "$build/" && echo "   reproducer: $build/$(basename "$f")"
    done
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
