#!/usr/bin/env bash
# tests/enforce/test_escape_review.sh — issue 9, the six ways out an attacker review found, held closed.
# Each attack runs inside `cordon run` (default tree, workspace-write, as root and as an unprivileged
# user); then the HOST does its own ordinary later thing (git status, git checkout / stash, git commit, a
# later run in a subdirectory) and the outcome is checked there: a marker absent, a file outside
# unchanged, a secret not read. Where the attack can be shown to work without cordon, it is first run so
# on a fresh case (the control), so a passing test means the sandbox stopped it.
#   1. a descriptor reopened for writing through /proc/self/fd/N (passed in, and swapped in a race)
#   2. core.worktree set to a directory outside, then the host's git checkout -- . and git stash
#   3. a .git file "gitdir: HOME" left at a later run's workdir's parent
#   4. the siblings of a workdir below a subdirectory of /tmp
#   5. a symbolic link planted in .git (COMMIT_EDITMSG), then the host's git commit
#   6. init's /proc/1/environ (O_CREAT, a dirfd of /proc/1): the caller's unsanitized environment (for an
#      unprivileged user init's own entries are root's, closed to init too; for root they were open)
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed for the /proc/1 probes"
build_helper fd_swap_race fd_swap_race.c -lpthread || { bad "build the descriptor race helper"; finish; exit 1; }

GIT="git -c user.email=t@example.com -c user.name=t"
# fsmonitor LINE for .git/config: the host's next git status runs "touch MARKER"
fsmonitor() { printf '[core]\n\tfsmonitor = "touch %s; false #"\n' "$1"; }
# sbx_or_host MODE USER CMD…: CMD inside cordon (MODE sandbox) or on the host without it (MODE control)
sbx_or_host() { local mode=$1 u=$2; shift 2; if [ "$mode" = control ]; then host "$u" "$@"; else sbx "$u" -- "$@"; fi; }
# held MODE ATTACK OUTCOME COMMAND…: COMMAND tests OUTCOME on the host; the sandbox case expects it to
# hold, the control (the same without cordon) expects it not to, showing the attack does get out there
held() {
  local mode=$1 attack=$2 outcome=$3; shift 3
  if [ "$mode" = control ]; then check "control: without cordon, $attack gets out" bash -c '! "$@"' _ "$@"
  else check "$u: $attack: $outcome" "$@"; fi
}
MODES="control sandbox"  # the control once, for the first user
# in_sub run|explain ARGS…: cordon as the user's later, ordinary call in the subdirectory $W/sub
in_sub() { as "$u" "$W/sub" "$H" "$CORDON" "$1" --workdir "$W/sub" "${@:2}"; }

for u in $USERS; do
  # --- 1. /proc/self/fd/N reopened for writing -----------------------------------------------------------
  for mode in $MODES; do
    new_case "$u"
    m="$O/marker"
    before=$(state "$W/.git/config")
    if [ "$mode" = control ]; then
      host "$u" sh -c 'printf "%s" "$1" >/proc/self/fd/3' sh "$(fsmonitor "$m")" 3>>"$W/.git/config" 2>/dev/null
    else
      sbx "$u" --pass-fd 3 -- sh -c 'printf "%s" "$1" >/proc/self/fd/3' sh "$(fsmonitor "$m")" \
        3>>"$W/.git/config" 2>/dev/null
    fi
    host "$u" git status >/dev/null 2>&1
    held "$mode" "a write descriptor on .git/config passed in (--pass-fd 3) and reopened through /proc/self/fd/3" \
      "the host's git status runs nothing" \
      test ! -e "$m"
    [ "$mode" = sandbox ] && expect_eq "$u: ... and .git/config is unchanged" "$(state "$W/.git/config")" "$before"
  done
  for mode in $MODES; do
    new_case "$u"
    m="$O/marker"
    before=$(state "$W/.git/config")
    cp "$BIN/fd_swap_race" "$W/fd_swap_race" && chown "$u" "$W/fd_swap_race"  # where the run may execute it
    # stdout only: the gate says each refusal on stderr
    out=$(sbx_or_host "$mode" "$u" ./fd_swap_race .git/config decoy "$(fsmonitor "$m")" 2>/dev/null)
    host "$u" git status >/dev/null 2>&1
    [ "$mode" = sandbox ] &&
      check "$u: (the race ran inside: $out)" grep -qE '^(won|lost) after [0-9]+ tries$' <<<"$out"
    held "$mode" "descriptor N swapped between read-only .git/config and a write one on a decoy, /proc/self/fd/N opened for append" \
      "the host's git status runs nothing" \
      test ! -e "$m"
    [ "$mode" = sandbox ] && expect_eq "$u: ... and .git/config is unchanged" "$(state "$W/.git/config")" "$before"
  done

  # --- 2. core.worktree naming a directory outside (that git submodule update --init still works inside is
  # test_escape_git.sh's) ------------------------------------------------------------------------------------
  for mode in $MODES; do
    new_case "$u"
    m="$O/marker"
    before=$(state "$O/file")
    sbx_or_host "$mode" "$u" sh -c '
echo "touch $1" >evil && blob=$(git hash-object -w evil) && rm evil
git config core.worktree "$2"
git update-index --add --cacheinfo "100644,$blob,$(basename "$1")"
'"$GIT"' commit -q -m wip' sh "$m" "$O" >/dev/null 2>&1
    host "$u" sh -c 'git checkout -- .; git stash; git checkout -- .' >/dev/null 2>&1
    held "$mode" "core.worktree set to the directory outside and a commit holding $(basename "$m")" \
      "the host's git checkout -- . and git stash write nothing there" \
      test ! -e "$m"
    [ "$mode" = sandbox ] && expect_eq "$u: ... and $O/file is unchanged" "$(state "$O/file")" "$before"
  done

  # --- 3. a .git file written at a later workdir's parent --------------------------------------------------
  new_case "$u"
  rm -rf "$W/.git" && mkdir -p "$W/sub" "$H/private" && echo "PRIVATE-NOTES-$u" >"$H/private/notes.txt"
  chown -R "$u" "$CASE"
  check "$u: (on the host $H/private/notes.txt reads)" \
    test "$(host "$u" cat "$H/private/notes.txt")" = "PRIVATE-NOTES-$u"
  out=$(in_sub run -- cat "$H/private/notes.txt" 2>&1)
  check "$u: (before: a run in the subdirectory cannot read $H/private/notes.txt)" \
    test -z "$(grep PRIVATE-NOTES <<<"$out")"
  sbx "$u" -- sh -c 'printf "gitdir: %s\n" "$1" >.git' sh "$H" 2>/dev/null
  out=$(in_sub run -- sh -c 'cat "$1/private/notes.txt"; ls -a "$1"' sh "$H" 2>&1)
  check "$u: a .git file \"gitdir: HOME\" written by an earlier run: a later one in the subdirectory still cannot read it" \
    test -z "$(grep PRIVATE-NOTES <<<"$out")"
  if [ -f "$W/.git" ]; then
    out=$(in_sub explain --platform linux 2>&1)
    check "$u: ... and explain says what the gitfile names is not granted" \
      grep -qF "neither a worktree's git directory naming it back" <<<"$out"
  else
    ok "$u: ... (writing the .git file itself was refused)"
  fi

  # --- 4. siblings of a workdir below a subdirectory of /tmp -----------------------------------------------
  for mode in $MODES; do
    new_case "$u"
    m="$O/marker"
    T=$(mktemp -d /tmp/cordon-review.XXXXXX)
    at_exit "rm -rf '$T'"
    mkdir -p "$T/proj" "$T/sibling" && echo keep >"$T/sibling/notes.txt"
    chmod 755 "$T" && chown -R "$u" "$T"
    W=$T/proj
    before=$(tree_state "$T/sibling")
    sbx_or_host "$mode" "$u" sh -c 'echo "touch $2" >"$1/.envrc"; echo pwned >"$1/notes.txt"; echo mine >written' \
      sh "$T/sibling" "$m" 2>/dev/null
    # the host enters the sibling project, as direnv would
    host "$u" sh -c 'cd "$1" && if [ -f .envrc ]; then . ./.envrc; fi' sh "$T/sibling" >/dev/null 2>&1
    held "$mode" "writing sibling/.envrc and sibling/notes.txt from a workdir below a subdirectory of /tmp" \
      "they are unchanged on the host, and its direnv runs nothing" \
      test ! -e "$m" -a "$(tree_state "$T/sibling")" = "$before"
    [ "$mode" = sandbox ] && expect_eq "$u: ... and the workdir there stays writable" "$(cat "$W/written" 2>&1)" mine
  done

  # --- 5. a symbolic link planted in .git -------------------------------------------------------------------
  for mode in $MODES; do
    new_case "$u"
    before=$(state "$O/file")
    sbx_or_host "$mode" "$u" sh -c 'rm -f .git/COMMIT_EDITMSG; ln -s "$1" .git/COMMIT_EDITMSG
ln -s "$1" cem && mv cem .git/COMMIT_EDITMSG' sh "$O/file" 2>/dev/null
    [ "$mode" = sandbox ] &&
      check "$u: a symbolic link .git/COMMIT_EDITMSG -> $O/file is refused, made or moved" test ! -L "$W/.git/COMMIT_EDITMSG"
    host "$u" sh -c 'echo data >f && git add f && '"$GIT"' commit -q -m x' >/dev/null 2>&1
    held "$mode" "a symbolic link .git/COMMIT_EDITMSG -> $O/file" "after the host's git commit -m x, the file is unchanged" \
      test "$(state "$O/file")" = "$before"
  done

  # --- 6. init's /proc/1/environ ------------------------------------------------------------------------------
  secret="cordon-review-secret-$u-$RANDOM"
  # READ_ENVIRON SECRET PID: every way tried to read PID's environment, one line each ("LEAK" if SECRET)
  READ_ENVIRON='import errno, os, sys
secret, pid = sys.argv[1].encode(), sys.argv[2]
def attempt(label, opener):
    try:
        fd = opener()
        data = os.read(fd, 1 << 20)
        os.close(fd)
        print(label, "LEAK" if secret in data else "read, no secret")
    except OSError as e:
        print(label, errno.errorcode.get(e.errno, e.errno))
env = "/proc/%s/environ" % pid
attempt("open", lambda: os.open(env, os.O_RDONLY))
attempt("open-creat", lambda: os.open(env, os.O_RDONLY | os.O_CREAT))
try:
    d = os.open("/proc/" + pid, os.O_RDONLY | os.O_DIRECTORY)
except OSError as e:
    d = None
    print("dirfd", errno.errorcode.get(e.errno, e.errno))
if d is not None:
    attempt("openat", lambda: os.open("environ", os.O_RDONLY, dir_fd=d))
    attempt("openat-creat", lambda: os.open("environ", os.O_RDONLY | os.O_CREAT, dir_fd=d))
print("env", "LEAK" if secret in os.environb.get(b"CORDON_REVIEW_SECRET", b"") else "no secret")'
  if [ "$u" = "${USERS%% *}" ]; then
    new_case "$u"
    (as_exec "$u" "$W" "$H" env CORDON_REVIEW_SECRET="$secret" sleep 30) &
    holder=$!
    BG_PIDS="$BG_PIDS $holder"
    sleep 0.3
    out=$(host "$u" python3 -c "$READ_ENVIRON" "$secret" "$holder" 2>&1)
    check "control: without cordon the probe reads a process's environment ($(tr '\n' ' ' <<<"$out"))" grep -q "^open LEAK" <<<"$out"
    kill "$holder" 2>/dev/null
  fi
  new_case "$u"
  out=$(as "$u" "$W" "$H" env CORDON_REVIEW_SECRET="$secret" "$CORDON" run --workdir "$W" -- \
    python3 -c "$READ_ENVIRON" "$secret" 1 2>&1)
  check "$u: open(/proc/1/environ, O_RDONLY|O_CREAT) inside fails ($(grep '^open-creat' <<<"$out"))" \
    grep -qE '^open-creat E[A-Z]+$' <<<"$out"
  check "$u: the secret in cordon's own environment is not readable inside, by any way tried ($(tr '\n' ' ' <<<"$out"))" \
    test -z "$(grep -e LEAK -e "$secret" <<<"$out")" -a -n "$(grep '^env no secret' <<<"$out")"

  MODES=sandbox
done
finish
