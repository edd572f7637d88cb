# tests/enforce/lib.sh — shared setup for the Linux enforcement tests (sourced, not run).
#
# Every test runs real commands through `cordon run`, once as root and once as an unprivileged user
# (cordontest, created here when missing), each with its own temporary HOME and workdir under /var/tmp
# (not /tmp: the standard profiles make /tmp writable, which would hide what a test means to check).
# Denied cases check that the target is unchanged afterwards. A test skips (exit 77) only when the
# kernel lacks a feature, and says which.
set -u

T_PASS=0
T_FAIL=0
ok() { T_PASS=$((T_PASS + 1)); echo "ok - $*"; }
bad() { T_FAIL=$((T_FAIL + 1)); echo "FAIL - $*"; }
# check "description" command…: passes when the command succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
finish() { echo "$T_PASS passed, $T_FAIL failed"; [ "$T_FAIL" -eq 0 ]; }
skip() { echo "SKIP: $*"; echo "0 passed, 0 failed"; exit 77; }

: "${CORDON:?CORDON must name the cordon binary}"
[ "$(uname -s)" = Linux ] || skip "not Linux: these tests enforce with Landlock"

probe=$("$CORDON" lua /dev/stdin <<'LUA' 2>&1
local p = require("cordon.c.linux").probe()
io.write(p.abi, " ", tostring(p.userns), "\n")
LUA
)
LL_ABI=${probe%% *}
case $LL_ABI in ''|*[!0-9]*) echo "cannot probe Landlock: $probe"; echo "0 passed, 1 failed"; exit 1 ;; esac
[ "$LL_ABI" -ge 3 ] || skip "kernel Landlock ABI is $LL_ABI; these tests need >= 3 (Linux 6.2+)"

# One enforcement test at a time on this machine (ctest -j, other build directories): they share the
# users and host paths such as /run/user/UID, where test_network plants a stand-in daemon socket that
# every plan compiled meanwhile would try to mask.
exec 9>>/var/tmp/cordon-enforce.lock
chmod 666 /var/tmp/cordon-enforce.lock 2>/dev/null
flock 9

ROOT=$(mktemp -d /var/tmp/cordon-enforce.XXXXXX)
chmod 755 "$ROOT"
BG_PIDS=""
cleanup() {
  for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
  rm -rf "$ROOT"
}
trap cleanup EXIT

# The users each test runs as: root and an unprivileged one when we can make it, else ourselves.
TEST_USER=cordontest
if [ "$(id -u)" -eq 0 ]; then
  id "$TEST_USER" >/dev/null 2>&1 || useradd -M -s /bin/sh "$TEST_USER" >/dev/null 2>&1 ||
    echo "note: cannot create user $TEST_USER; running as root only"
  if id "$TEST_USER" >/dev/null 2>&1; then USERS="root $TEST_USER"; else USERS="root"; fi
else
  USERS=$(id -un)
fi

# as_exec USER DIR HOME CMD…: replaces the (sub)shell with CMD run as USER in DIR with HOME and a clean
# environment (plus what sanitized builds need). `as_exec … &` leaves $! naming CMD's own process.
as_exec() {
  local user=$1 dir=$2 home=$3
  shift 3
  local drop=()
  [ "$user" = "$(id -un)" ] || drop=(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups)
  cd "$dir" || exit 125
  exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" LANG=C \
    ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
    ${CORDON_LUA_PATH:+CORDON_LUA_PATH=$CORDON_LUA_PATH} "${drop[@]}" "$@" 9>&-  # not the test lock
}
# as USER DIR HOME CMD…: the same in a subshell, returning CMD's status.
as() { (as_exec "$@"); }

# new_case USER: fresh $H (home) and $W (workdir, a git repository) owned by USER; also $O, a directory
# outside both that the sandbox must not write.
new_case() {
  local user=$1
  CASE="$ROOT/$user.$((CASE_N = ${CASE_N:-0} + 1))"
  H="$CASE/home"
  W="$CASE/work"
  O="$CASE/outside"
  mkdir -p "$H/.ssh" "$H/.aws" "$W" "$O"
  echo "PRIVATE KEY" >"$H/.ssh/id_ed25519"
  printf '[default]\naws_secret_access_key = s3cr3t\n' >"$H/.aws/credentials"
  echo "# rc" >"$H/.bashrc"
  echo "outside" >"$O/file"
  echo "inside" >"$W/file"
  git -C "$W" init -q
  git -C "$W" -c user.email=t@example.com -c user.name=t commit -q --allow-empty -m init
  chmod 755 "$CASE"
  chown -R "$user" "$CASE"
}

# sbx USER [cordon run options] -- CMD…: the command inside cordon, in $W, with $H as HOME.
sbx() {
  local user=$1
  shift
  as "$user" "$W" "$H" "$CORDON" run --workdir "$W" "$@"
}

# State of a path for "unchanged afterwards" checks: type, size and content hash (or "absent").
state() {
  if [ -L "$1" ]; then echo "link $(readlink "$1")"
  elif [ -d "$1" ]; then echo "dir $(ls -A "$1" | tr '\n' ' ')"
  elif [ -e "$1" ]; then echo "file $(cksum <"$1")"
  else echo absent; fi
}

# eventually_absent PATH: true once PATH is gone (placeholders are removed by a detached cleaner after
# the command's mount namespace has emptied), waiting up to 5 s.
eventually_absent() {
  local i
  for i in $(seq 50); do [ -e "$1" ] || return 0; sleep 0.1; done
  return 1
}

# settle PATH STATE: waits (up to 5 s) for PATH to be back in STATE: the placeholders a run made inside it
# are removed by a detached cleaner after the run, not before cordon returns.
settle() {
  local i
  for i in $(seq 50); do [ "$(state "$1")" = "$2" ] && return 0; sleep 0.1; done
  return 1
}
