#!/usr/bin/env bash
# tests/cli/test_front.sh — the static front when it is built (a static-pie on musl, no loader, handing
# other commands to cordon-full), and one full executable when it is not (-DCORDON_FRONT=OFF).
set -u
cordon=${CORDON:?}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

if [ ! -e "$cordon-full" ]; then
  out=$("$cordon" lua -e 'print(require("cordon").path.normalize("/a//b"))' 2>&1)
  [ "$out" = /a/b ] && ok || bad "without the front, cordon is the full executable (Lua inside): $out"
else
  command -v readelf >/dev/null || { echo "skip: no readelf"; exit 77; }
  headers=$(readelf -lW "$cordon")
  grep -q "Position-Independent Executable" <<<"$headers" && ok || bad "the front is position-independent"
  ! grep -q "INTERP" <<<"$headers" && ok || bad "the front asks for no loader (static-pie): $(grep INTERP <<<"$headers")"
  symbols=$(readelf -sW "$cordon")
  grep -qw "__init_libc" <<<"$symbols" && ok || bad "the front's libc is musl's (no __init_libc)"
  ! grep -qw "_dl_relocate_static_pie" <<<"$symbols" && ok || bad "the front carries no glibc start-up"
  ! grep -qw "luaL_newstate" <<<"$symbols" && ok || bad "the front holds no Lua"
  [ "$("$cordon" version 2>&1)" = "$("$cordon-full" version 2>&1)" ] && ok || bad "the front hands version to cordon-full"
  out=$("$cordon" lua -e 'print(1 + 1)' 2>&1)
  [ "$out" = 2 ] && ok || bad "the front hands lua to cordon-full: $out"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
