#!/usr/bin/env bash
# needs: linux
# tests/cli/test_install.sh — `cmake --install` into a fresh prefix, then use what it installed the way a
# user and a tool builder would, with the source and build trees out of sight (a mount namespace hides
# them): the CLI from another directory, the man page, the three completions, a C host built with
# pkg-config and another with find_package(cordon), and stock lua5.4 requiring submodules on their own.
set -u
build=${CORDON_BUILD_DIR:?} src=${CORDON_SOURCE_DIR:?}
# A sanitized build's cordon.so and libcordon need the ASan runtime in every host: that pass checks C.
[ -z "${CORDON_SANITIZED:-}" ] || exit 77
tmp=$(mktemp -d /tmp/cordon-install-test.XXXXXX)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }

p=$tmp/prefix
cmake --install "$build" --prefix "$p" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "FAIL: install"; exit 1; }
libdir=$(dirname "$(find "$p" -name cordon.pc)")/..
cmod=$(dirname "$(find "$p" -path '*/lua/5.4/cordon.so')")

# Only the public headers: cordon.h and what it includes, nothing internal.
for h in $(cd "$p/include/cordon" && find . -name '*.h'); do
  case $h in *_impl.h|*internal*|./lua/*|./cli/*|./front/*) bad "internal header installed: $h" ;; esac
done
check "cordon.h compiles alone" cc -fsyntax-only -std=c11 -I"$p/include/cordon" -x c - <<<'#include <cordon.h>
int main(void) { return 0; }'

# Everything below runs with the source and build trees hidden: nothing installed may need them.
# (the deeper one first: the build tree usually sits inside the source tree)
hidden() {
  local a=$src b=$build
  [ ${#build} -gt ${#src} ] && a=$build b=$src
  unshare -rm sh -c 'mount -t tmpfs none "$1" && mount -t tmpfs none "$2" && shift 2 && exec "$@"' sh "$a" "$b" "$@"
}
check "the trees can be hidden" hidden sh -c '! ls "$0"/CMakeLists.txt 2>/dev/null' "$src"

out=$(cd / && hidden "$p/bin/cordon" version 2>&1) && [ -n "$out" ] && ok || bad "cordon version from /: $out"
out=$(cd / && hidden "$p/bin/cordon" policy --platform linux --workdir /tmp 2>&1) && grep -q "(version 1)" <<<"$out" && ok \
  || bad "cordon policy from / with the trees hidden: $(head -3 <<<"$out")"
if out=$(cd "$tmp" && hidden "$p/bin/cordon" run --workdir "$tmp" -- sh -c 'echo inside' 2>&1); then
  [ "$out" = inside ] && ok || bad "cordon run printed: $out"
else
  bad "cordon run from the installed prefix failed: $out"
fi

# The man page renders without a warning; the completions parse and complete.
if command -v groff >/dev/null; then
  warn=$(groff -man -Tutf8 -ww -z "$p/share/man/man1/cordon.1" 2>&1)
  [ -z "$warn" ] && ok || bad "cordon.1: $warn"
  groff -man -Tascii -P-cbou "$p/share/man/man1/cordon.1" 2>/dev/null | grep -q -- "--add-dirs-ro" && ok || bad "cordon.1 lists run's options"
fi
bashc=$p/share/bash-completion/completions/cordon
out=$(bash -c 'source "$1"; COMP_WORDS=(cordon run --pro); COMP_CWORD=2; _cordon; echo "${COMPREPLY[*]}"' sh "$bashc")
[ "$out" = "--profile --profiles-dir" ] && ok || bad "bash completes 'cordon run --pro' as: $out"
out=$(bash -c 'source "$1"; COMP_WORDS=(cordon run --profile wo); COMP_CWORD=3; _cordon; echo "${COMPREPLY[*]}"' sh "$bashc")
[ "$out" = "workspace-write" ] && ok || bad "bash completes --profile wo as: $out"
if command -v zsh >/dev/null; then check "zsh parses _cordon" zsh -n "$p/share/zsh/site-functions/_cordon"; fi
if command -v fish >/dev/null; then
  out=$(fish -c 'source $argv[1]; complete -C "cordon completion "' "$p/share/fish/vendor_completions.d/cordon.fish" | tr '\n' ' ')
  [ "$out" = "bash fish zsh " ] && ok || bad "fish completes 'cordon completion ' as: $out"
fi

# docs/examples/host.c, built with pkg-config, then with find_package(cordon) through docs/examples/CMakeLists.txt:
# it opens the module on its own lua_State and asks the assembled policy one question.
mkdir -p "$tmp/w"
host_says() {  # host_says WHAT HOST: the host's answers for a write inside the workdir and one to ~/.ssh
  local out
  out=$(LD_LIBRARY_PATH=$libdir hidden "$2" "$tmp/w" file-write-data "$tmp/w/a.txt" 2>&1)
  case $out in "allow "*) ok ;; *) bad "$1: a write inside the workdir: $out" ;; esac
  out=$(LD_LIBRARY_PATH=$libdir hidden "$2" "$tmp/w" file-write-data "$HOME/.ssh/authorized_keys" 2>&1)
  case $out in "deny "*) ok ;; *) bad "$1: a write to ~/.ssh: $out" ;; esac
}
export PKG_CONFIG_PATH=$libdir/pkgconfig
# shellcheck disable=SC2046
if cc -o "$tmp/host" "$src/docs/examples/host.c" $(pkg-config --cflags --libs cordon) 2>"$tmp/cc.log"; then
  host_says "the pkg-config host" "$tmp/host"
else
  bad "cc host.c \$(pkg-config --cflags --libs cordon): $(cat "$tmp/cc.log")"
fi
if cmake -S "$src/docs/examples" -B "$tmp/cmk" -DCMAKE_PREFIX_PATH="$p" >"$tmp/cmk.log" 2>&1 &&
   cmake --build "$tmp/cmk" >>"$tmp/cmk.log" 2>&1; then
  host_says "the find_package host" "$tmp/cmk/host"
else
  bad "find_package(cordon): $(tail -20 "$tmp/cmk.log")"
fi

# docs/examples/audit.lua, a tool on the Lua API, with the installed cordon and with stock lua5.4.
cp "$src/docs/examples/audit.lua" "$tmp/audit.lua"
audit_says() {
  grep -q "^write allow $tmp/w/a.txt" <<<"$2" && ok || bad "$1: a write inside the workdir: $2"
  grep -q "^write deny  $tmp/w/.git/hooks/pre-commit  (git layout" <<<"$2" && ok || bad "$1: a hook: $2"
}
audit_says "cordon lua audit.lua" "$(cd "$tmp/w" && hidden "$p/bin/cordon" lua "$tmp/audit.lua" a.txt .git/hooks/pre-commit 2>&1)"
if command -v lua5.4 >/dev/null; then
  audit_says "lua5.4 audit.lua" "$(cd "$tmp/w" && LUA_CPATH="$cmod/?.so" hidden lua5.4 "$tmp/audit.lua" a.txt .git/hooks/pre-commit 2>&1)"
fi

# Stock lua5.4: every submodule can be required on its own, first thing, from the installed cordon.so.
if command -v lua5.4 >/dev/null; then
  for m in cordon.luaprofile cordon.env cordon.config cordon.profile cordon.c.path cordon.cli.args; do
    out=$(cd / && LUA_CPATH="$cmod/?.so" LUA_PATH= hidden lua5.4 -e "io.write(type(require '$m'))" 2>&1)
    [ "$out" = table ] && ok || bad "lua5.4: require '$m' alone gave: $out"
  done
  out=$(LUA_CPATH="$cmod/?.so" lua5.4 -e "local a = require 'cordon.c.path'; local c = require 'cordon'; io.write(tostring(a == c.path))")
  [ "$out" = true ] && ok || bad "a submodule required alone is the one cordon uses: $out"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
