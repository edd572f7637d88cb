#!/usr/bin/env bash
# tests/cli/test_fresh_home.sh — `cordon run` on Linux from a fresh account (an empty HOME): the sandbox's
# caches exist before the command starts and are writable, so go, npm, pip and cargo work where grants on
# caches that did not exist used to be skipped (EACCES); the host's caches stay untouched. Real npm
# install, pip wheel and cargo run where those tools are installed (each says when it is skipped), and
# for every toolchain variable a file written through it lands in cordon's state, checked on disk.
# Skips (77) where the Linux sandbox cannot run.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
src=${CORDON_SOURCE_DIR:?CORDON_SOURCE_DIR must point at the source tree}
[ "$(uname)" = Linux ] || { echo "skip: Linux only"; exit 77; }
. "$src/tests/lib/scratch.sh"
tmp=$(cordon_scratch fresh-home) || exit 1
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
real_home=$(getent passwd "$(id -u)" | cut -d: -f6)

home="$tmp/home"
work="$tmp/work"
mkdir -p "$home" "$work"
caches="$home/.local/state/cordon/caches"
run() { (cd "$work" && env -u XDG_STATE_HOME -u XDG_CONFIG_HOME -u XDG_CACHE_HOME HOME="$home" \
  "$cordon" run --no-config --network restricted "$@"); }

if ! run -- /bin/true 2>"$tmp/err"; then
  echo "skip: the Linux sandbox cannot run here: $(cat "$tmp/err")"
  exit 77
fi

# Every cache variable names an existing, writable directory under cordon's state.
for var in GOCACHE GOMODCACHE npm_config_cache COREPACK_HOME PIP_CACHE_DIR UV_CACHE_DIR CARGO_HOME GRADLE_USER_HOME \
           PLAYWRIGHT_BROWSERS_PATH PRE_COMMIT_HOME DENO_DIR ZIG_GLOBAL_CACHE_DIR; do
  out=$(run -- /bin/sh -c "d=\$$var; [ -d \"\$d\" ] && echo probe > \"\$d/probe\" && echo \"\$d\"" 2>&1)
  case $out in
    "$caches"/*) [ "$(cat "$out/probe" 2>/dev/null)" = probe ] && ok || bad "$var: nothing written at $out" ;;
    *) bad "$var: not a writable cache under $caches: $out" ;;
  esac
done

# The host's cache on a machine that has one stays as it was.
mkdir -p "$home/.cache/go-build"
echo host >"$home/.cache/go-build/entry"
run -- /bin/sh -c 'echo evil > "$HOME/.cache/go-build/entry"' >/dev/null 2>&1 && bad "the host's Go cache was writable" || ok
[ "$(cat "$home/.cache/go-build/entry")" = host ] && ok || bad "the host's Go cache changed"

# npm install of a local package, offline: the package lands in node_modules, npm's cache in the sandbox's.
if command -v npm >/dev/null; then
  mkdir -p "$work/pkg"
  printf '{"name":"tiny","version":"1.0.0"}\n' >"$work/pkg/package.json"
  (cd "$work/pkg" && npm pack -q >/dev/null 2>&1)
  printf '{"name":"app","version":"1.0.0"}\n' >"$work/package.json"
  if run -- npm install --offline --no-audit --no-fund ./pkg/tiny-1.0.0.tgz >"$tmp/npm.out" 2>&1; then ok
  else bad "npm install failed: $(tail -3 "$tmp/npm.out")"; fi
  [ -f "$work/node_modules/tiny/package.json" ] && ok || bad "npm installed nothing"
  [ -d "$caches/npm/_cacache" ] && ok || bad "npm's cache is not the sandbox's"
  [ ! -e "$home/.npm" ] && ok || bad "npm wrote the host's ~/.npm"
else
  echo "skip: npm is not installed"
fi

# pip wheel of a local project, offline.
if /usr/bin/python3 -m pip --version >/dev/null 2>&1 && /usr/bin/python3 -c 'import setuptools' 2>/dev/null; then
  mkdir -p "$work/pypkg"
  printf 'from setuptools import setup\nsetup(name="tinypy", version="1.0", py_modules=["tinypy"])\n' >"$work/pypkg/setup.py"
  echo 'X = 1' >"$work/pypkg/tinypy.py"
  if run -- /usr/bin/python3 -m pip wheel -q --no-index --no-deps --no-build-isolation ./pypkg -w wheels \
      >"$tmp/pip.out" 2>&1; then ok; else bad "pip wheel failed: $(tail -3 "$tmp/pip.out")"; fi
  ls "$work"/wheels/tinypy-1.0-*.whl >/dev/null 2>&1 && ok || bad "pip built no wheel"
  [ ! -e "$home/.cache/pip" ] && ok || bad "pip wrote the host's ~/.cache/pip"
else
  echo "skip: /usr/bin/python3 has no pip and setuptools"
fi

# cargo run of a crate without dependencies, offline, with the toolchain of the real account.
if [ -x "$real_home/.cargo/bin/cargo" ] && [ -d "$real_home/.rustup/toolchains" ]; then
  mkdir -p "$work/crate/src"
  printf '[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n' >"$work/crate/Cargo.toml"
  echo 'fn main() { println!("built"); }' >"$work/crate/src/main.rs"
  out=$(cd "$work/crate" && env -u XDG_STATE_HOME HOME="$home" RUSTUP_HOME="$real_home/.rustup" "$cordon" run \
    --no-config --network restricted --env-pass RUSTUP_HOME --add-dirs-ro "$real_home/.rustup" \
    --add-dirs-ro "$real_home/.cargo/bin" -- "$real_home/.cargo/bin/cargo" run --offline -q 2>"$tmp/cargo.err")
  [ "$out" = built ] && ok || bad "cargo run failed: $out $(tail -3 "$tmp/cargo.err")"
  [ ! -e "$home/.cargo" ] && ok || bad "cargo wrote the host's ~/.cargo"
else
  echo "skip: no rustup toolchain in $real_home"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
