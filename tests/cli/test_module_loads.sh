#!/usr/bin/env bash
# The stock lua5.4 interpreter loads cordon.so from the build directory.
set -eu
# A sanitized cordon.so needs the ASan runtime preloaded into lua5.4; that pass checks the C side only.
[ -z "${CORDON_SANITIZED:-}" ] || exit 77
out=$(cd "$CORDON_BUILD_DIR" && LUA_CPATH="$CORDON_BUILD_DIR/?.so" lua5.4 -e 'local c = require "cordon"; io.write(c.version)')
[ -n "$out" ] || { echo "cordon.so did not load"; exit 1; }
echo "1 passed, 0 failed"
