# tests/enforce/lib.sh — shared setup for the Linux enforcement tests (sourced, not run).
#
# Every test runs real commands through `cordon run`, once as root and once as an unprivileged user
# (cordontest, created here when missing), each with its own temporary HOME and workdir under /var/tmp,
# and checks the outcome on the host afterwards (a file unchanged, a marker absent), never an exit code
# alone. A test skips (exit 77) only when the kernel lacks a feature, and says which.
#
# Nothing the unprivileged user runs may come from the source or build tree, which may sit in a directory
# only its owner can enter (a clone under a mode-0700 mktemp -d): cordon, cordon-full and every helper the
# tests run are copied into this test's own directory under /var/tmp first ($BIN), and CORDON names the copy.
set -u

T_PASS=0
T_FAIL=0
ok() { T_PASS=$((T_PASS + 1)); echo "ok - $*"; }
bad() { T_FAIL=$((T_FAIL + 1)); echo "FAIL - $*"; }
# check "description" command…: passes when the command succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else bad "$d"; fi; }
# expect_eq "description" GOT WANT: passes when GOT is WANT; a failure shows both
expect_eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (got: $(printf '%s' "$2" | tr '\n' '|'); want: $(printf '%s' "$3" | tr '\n' '|'))"; fi; }
finish() { echo "$T_PASS passed, $T_FAIL failed"; [ "$T_FAIL" -eq 0 ]; }
skip() { echo "SKIP: $*"; echo "0 passed, 0 failed"; exit 77; }

: "${CORDON:?CORDON must name the cordon binary}"
[ "$(uname -s)" = Linux ] || skip "not Linux: these tests enforce with Landlock"
ENFORCE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# One enforcement test at a time on this machine (ctest -j, other build directories): they share the
# users and host paths such as /run/user/UID and the users' /tmp/tmux-UID.
exec 9>>/var/tmp/cordon-enforce.lock
chmod 666 /var/tmp/cordon-enforce.lock 2>/dev/null
flock 9

# Every test's directory sits under one fixed parent: the workdir's ancestors are listed in the run's
# view, and a parent that only this (serialized) test changes keeps other processes' churn in /var/tmp
# from invalidating the run cache between two runs of one test.
PARENT=/var/tmp/cordon-enforce
mkdir -p "$PARENT" 2>/dev/null && chmod 755 "$PARENT" 2>/dev/null
[ -w "$PARENT" ] || PARENT=/var/tmp
ROOT=$(mktemp -d "$PARENT/run.XXXXXX")
chmod 755 "$ROOT"
BG_PIDS=""
CLEANUPS=()
cleanup() {
  local c p
  for c in "${CLEANUPS[@]}"; do eval "$c" >/dev/null 2>&1; done
  for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
  rm -rf "$ROOT"
}
trap cleanup EXIT
# at_exit "shell command": run when the test ends, however it ends (host servers, files under /tmp)
at_exit() { CLEANUPS+=("$1"); }

# The binaries and helpers, where every test user can run them.
BIN="$ROOT/bin"
mkdir -p "$BIN"
cp "$CORDON" "$BIN/cordon" || { echo "cannot copy $CORDON"; echo "0 passed, 1 failed"; exit 1; }
[ -e "$(dirname "$CORDON")/cordon-full" ] && cp "$(dirname "$CORDON")/cordon-full" "$BIN/cordon-full"
chmod 755 "$BIN" "$BIN"/cordon*
CORDON_BUILT=$CORDON
CORDON=$BIN/cordon

# stage FILE…: copies tests/enforce/FILE into $BIN (readable and executable by every test user)
stage() {
  local f
  for f in "$@"; do cp "$ENFORCE_DIR/$f" "$BIN/$f" && chmod 755 "$BIN/$f" || return 1; done
}
# build_helper NAME SOURCE [LIBS…]: compiles tests/enforce/SOURCE into $BIN/NAME with the system cc
build_helper() {
  local name=$1 src=$2
  shift 2
  command -v cc >/dev/null || return 1
  cc -o "$BIN/$name" "$ENFORCE_DIR/$src" "$@" 2>"$ROOT/cc-$name.log" || { cat "$ROOT/cc-$name.log"; return 1; }
  chmod 755 "$BIN/$name"
}

probe=$("$CORDON" lua /dev/stdin <<'LUA' 2>&1
local p = require("cordon.c.linux").probe()
io.write(p.abi, " ", tostring(p.userns), "\n")
LUA
)
LL_ABI=${probe%% *}
case $LL_ABI in ''|*[!0-9]*) echo "cannot probe Landlock: $probe"; echo "0 passed, 1 failed"; exit 1 ;; esac
[ "$LL_ABI" -ge 3 ] || skip "kernel Landlock ABI is $LL_ABI; these tests need >= 3 (Linux 6.2+)"

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
  exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$home" LANG=C USER="$user" LOGNAME="$user" \
    ${ASAN_OPTIONS:+ASAN_OPTIONS=$ASAN_OPTIONS} ${UBSAN_OPTIONS:+UBSAN_OPTIONS=$UBSAN_OPTIONS} \
    ${CORDON_LUA_PATH:+CORDON_LUA_PATH=$CORDON_LUA_PATH} "${drop[@]}" "$@" 9>&-  # not the test lock
}
# as USER DIR HOME CMD…: the same in a subshell, returning CMD's status.
as() { (as_exec "$@"); }
# host USER CMD…: CMD on the host (no sandbox) as USER, in $W with $H as HOME: the user's own later
# command, whose outcome tells whether something planted inside the sandbox runs outside it.
host() { local user=$1; shift; as "$user" "$W" "$H" "$@"; }

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

# tree_state DIR: every entry beneath DIR with its type, mode, size, mtime and (files) content hash,
# sorted: two equal results mean a byte-identical tree. "absent" when DIR does not exist.
tree_state() {
  [ -e "$1" ] || { echo absent; return; }
  (cd "$1" && find . -printf '%p %y %m %s %T@ %l\n' | LC_ALL=C sort &&
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0r md5sum)
}

# wait_for PATH [TENTHS]: true once PATH exists, waiting up to TENTHS tenths of a second (default 50)
wait_for() {
  local i
  for i in $(seq "${2:-50}"); do [ -e "$1" ] && return 0; sleep 0.1; done
  return 1
}
