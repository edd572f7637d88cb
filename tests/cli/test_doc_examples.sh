#!/usr/bin/env bash
# tests/cli/test_doc_examples.sh — every ```lua example of README.md and docs/ runs as written, under
# `cordon lua` and under stock lua5.4 with cordon.so (tests/lua/doc_examples.lua says how blocks are read).
set -u
status=0
"${CORDON:?}" lua "$CORDON_SOURCE_DIR/tests/lua/doc_examples.lua" "$CORDON_SOURCE_DIR" || status=1
# a sanitized cordon.so needs the ASan runtime preloaded into lua5.4: that pass runs the examples in cordon
if [ -z "${CORDON_SANITIZED:-}" ] && command -v lua5.4 >/dev/null; then
  LUA_CPATH="$CORDON_BUILD_DIR/?.so" lua5.4 "$CORDON_SOURCE_DIR/tests/lua/doc_examples.lua" "$CORDON_SOURCE_DIR" || status=1
fi
exit $status
