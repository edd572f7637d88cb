#!/usr/bin/env bash
# tests/enforce/test_run_cache.sh — the run cache (docs/linux-backend.md, "The run cache"), as root and as
# an unprivileged user: a second identical `cordon run` is a hit; a hit enforces what a miss enforces;
# every input the decision depends on, changed, is a miss that takes the new input into account; an
# entry someone else could have written, or a damaged one, is never used.
. "$(dirname "$0")/lib.sh"

# rc USER [ENV=VALUE…] -- [cordon run options] -- CMD…: runs through cordon with CORDON_TRACE=1 from $W;
# sets RC (exit status), CACHE (hit, miss, off) and WHY (the trace's reason), stderr in ERR.
rc() {
  local user=$1
  shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  ERR=$(as "$user" "${DIR:-$W}" "$H" env CORDON_TRACE=1 "${envs[@]}" "${RUN_BIN:-$CORDON}" run --workdir "$W" "$@" 2>&1 >/dev/null)
  RC=$?
  local line
  line=$(printf '%s\n' "$ERR" | grep -m1 '^cordon: run-cache: \(hit\|miss\|off\)')
  CACHE=$(printf '%s' "$line" | sed -E 's/^cordon: run-cache: (hit|miss|off).*/\1/')
  WHY=$(printf '%s' "$line" | sed -E 's/^cordon: run-cache: [a-z]+ ?\(?//; s/\)$//')
}

# expect "description" RC CACHE: the last rc call ended with that status and cache outcome
expect() {
  if [ "$RC" = "$2" ] && [ "$CACHE" = "$3" ]; then ok "$u: $1"
  else bad "$u: $1 (exit $RC, cache '$CACHE' $WHY; expected exit $2, $3: $(printf '%s' "$ERR" | tail -3 | tr '\n' ' '))"; fi
}

entry() { ls -t "$H"/.cache/cordon/linux-runs/*.run 2>/dev/null | head -1; }

for u in $USERS; do
  new_case "$u"
  # The policy reads the workdir's .git/config (its hooksPath); new_case just wrote it, and a file
  # changed less than a second ago is never trusted by the run cache.
  sleep 1.1

  rc "$u" -- -- true
  expect "the first run is a miss" 0 miss
  rc "$u" -- -- true
  expect "the second identical run is a hit" 0 hit
  e=$(entry)
  check "$u: the entry is the caller's, mode 0600" test "$(stat -c '%U %a' "$e")" = "$u 600"
  rc "$u" CORDON_NO_RUN_CACHE=1 -- -- true
  expect "CORDON_NO_RUN_CACHE turns it off" 0 off
  # Nothing is made on the host for a run, so runs further apart still hit.
  sleep 1.2
  rc "$u" -- -- true
  expect "a run well after the last one is still a hit" 0 hit

  # --- a hit enforces exactly what a miss enforces -----------------------------------------------------
  hit_denied() {
    local d=$1 target=$2 cmd=$3 before
    before=$(state "$target")
    rc "$u" -- -- sh -c "$cmd || exit 42"
    [ "$RC" = 42 ] && [ "$CACHE" = miss ] || { bad "$u: $d: first run (exit $RC, $CACHE $WHY)"; return; }
    rc "$u" -- -- sh -c "$cmd || exit 42"
    expect "$d: denied on a hit too" 42 hit
    check "$u: $d: target unchanged" test "$(state "$target")" = "$before"
    [ "$(state "$target")" = "$before" ] || sleep 1.1  # what got through must not spoil the next case
  }
  hit_denied "write outside the workdir" "$O/file" "echo evil >'$O/file'"
  hit_denied "read ~/.ssh/id_*" "$H/.ssh/id_ed25519" "cat '$H/.ssh/id_ed25519'"
  hit_denied "write .git/hooks/*" "$W/.git/hooks/pre-commit" "echo evil >.git/hooks/pre-commit"
  # (the first run creates the file: the workdir changed, and the run cache waits for it to settle)
  rc "$u" -- -- sh -c 'echo ok >inside && cat file >/dev/null'
  sleep 1.1
  rc "$u" -- -- sh -c 'echo ok >inside && cat file >/dev/null'
  rc "$u" -- -- sh -c 'echo ok >inside && cat file >/dev/null'
  expect "a hit still writes inside the workdir" 0 hit
  check "$u: the write reached the workdir" test "$(cat "$W/inside")" = ok

  # --- every input changed is a miss that sees the change ----------------------------------------------
  write_out="echo allowed >'$O/new'"
  rc "$u" -- -- sh -c "$write_out"
  rc "$u" -- -- sh -c "$write_out"
  expect "writing outside is denied (primed)" 2 hit
  mkdir -p "$H/.config/cordon"
  printf 'add-dirs: [%s]\n' "$O" >"$H/.config/cordon/config.yaml"
  chown -R "$u" "$H/.config"
  rc "$u" -- -- sh -c "$write_out"
  expect "a new user config is a miss, and its add-dirs apply" 0 miss
  printf '# edited\n' >"$H/.config/cordon/config.yaml"
  rc "$u" -- -- sh -c "$write_out"
  expect "editing the user config is a miss, and the grant is gone" 2 miss
  rm -f "$O/new" "$H/.config/cordon/config.yaml"

  rc "$u" -- -- sh -c "$write_out"
  printf 'add-dirs: [%s]\n' "$O" >"$W/.cordon.yaml"
  chown "$u" "$W/.cordon.yaml"
  sleep 1.1  # settled: the second run below may be stored
  rc "$u" -- -- sh -c "$write_out"
  expect "an untrusted .cordon.yaml appearing is a miss, and stays ignored" 2 miss
  rc "$u" -- -- sh -c "$write_out"
  expect "the same again is a hit" 2 hit
  # A trust-list entry pins the file's content (lua/cordon/trust.lua): its SHA-256, then the directory.
  printf 'sha256:%s %s\n' "$(sha256sum <"$W/.cordon.yaml" | cut -d' ' -f1)" "$W" >"$H/.config/cordon/trusted-workdirs"
  chown "$u" "$H/.config/cordon/trusted-workdirs"
  rc "$u" -- -- sh -c "$write_out"
  expect "trusting the workdir is a miss, and its config applies" 0 miss
  rm -f "$O/new" "$W/.cordon.yaml" "$H/.config/cordon/trusted-workdirs"
  sleep 1.1  # the workdir settles again

  rc "$u" -- --add-dirs "$O" -- sh -c "$write_out"
  expect "--add-dirs is a miss, and applies" 0 miss
  rm -f "$O/new"

  rc "$u" LANG=C.UTF-8 -- -- true
  rc "$u" LANG=C.UTF-8 -- -- true
  expect "a kept variable, same value: hit" 0 hit
  rc "$u" LANG=en_US.UTF-8 -- -- true
  expect "a kept variable changed is a miss" 0 miss
  rc "$u" LANG=en_US.UTF-8 NOISE=1 -- -- true
  rc "$u" LANG=en_US.UTF-8 NOISE=2 -- -- true
  expect "a variable the command never sees changed by value only: hit" 0 hit
  rc "$u" LANG=en_US.UTF-8 NOISE=2 OTHER=1 -- -- true
  expect "a new variable is a miss" 0 miss
  rc "$u" SSH_AUTH_SOCK="$CASE/agent-a" -- -- true
  rc "$u" SSH_AUTH_SOCK="$CASE/agent-a" -- -- true
  expect "SSH_AUTH_SOCK unchanged: hit" 0 hit
  rc "$u" SSH_AUTH_SOCK="$CASE/agent-b" -- -- true
  expect "SSH_AUTH_SOCK changed is a miss although the command never sees it (the compiler masks the agent)" 0 miss

  sleep 1.1  # $H settles: the missing paths the compiler saw in it are then vouched for by its identity
  rc "$u" -- -- true
  rc "$u" -- -- true
  expect "primed with a settled home" 0 hit
  mkdir "$H/.cargo"
  chown "$u" "$H/.cargo"
  rc "$u" -- -- true
  expect "a path the compiler saw missing, created in the home, is a miss" 0 miss
  case $WHY in *"$H"*) ok "$u: it says where ($WHY)" ;; *) bad "$u: reason: $WHY" ;; esac
  rmdir "$H/.cargo"
  sleep 1.1
  rc "$u" -- -- sh -c "cat '$H/.ssh/id_ed25519' || exit 42"
  rc "$u" -- -- sh -c "cat '$H/.ssh/id_ed25519' || exit 42"
  expect "primed: the key is denied" 42 hit
  mv "$H/.ssh" "$H/.ssh-real" && ln -s "$H/.ssh-real" "$H/.ssh"
  rc "$u" -- -- sh -c "cat '$H/.ssh/id_ed25519' || exit 42"
  expect "~/.ssh replaced by a symlink to a copy is a miss, and the key stays denied" 42 miss
  rm "$H/.ssh" && mv "$H/.ssh-real" "$H/.ssh"

  # --- a hit enforces what a miss does: its Landlock rules are added ahead, on a helper thread, while
  # the entry is replayed; rules under a mask or behind a symlink wait for the mounts
  sleep 1.1
  for probe in "echo evil >.git/hooks/pre-commit" "echo evil >>.git/config" "cat '$H/.aws/credentials'" \
               "echo evil >/proc/self/root'$O/file'" "echo evil >>'$H/.bashrc'" "mkdir -p .agents/x"; do
    target=$W/.git/hooks
    case $probe in *config*) target=$W/.git/config ;; *aws*) target=$H/.aws/credentials ;;
                   *bashrc*) target=$H/.bashrc ;; */proc/self/root*) target=$O/file ;; *agents*) target=$W/.agents ;; esac
    before=$(state "$target")
    rc "$u" -- -- sh -c "$probe || exit 42"
    rc "$u" -- -- sh -c "$probe || exit 42"
    expect "denied on a hit as on a miss: $probe" 42 hit
    check "$u: and the target is unchanged ($target)" test "$(state "$target")" = "$before"
    [ "$(state "$target")" = "$before" ] || sleep 1.1  # what got through must not spoil the next probe
  done

  mkdir -p "$W/sub"
  chown "$u" "$W/sub"
  DIR="$W/sub" rc "$u" -- -- true
  expect "another cwd is a miss" 0 miss

  cp -r "$CORDON_SOURCE_DIR/profiles" "$CASE/profiles"
  chown -R "$u" "$CASE/profiles"
  sleep 1.1  # a file changed less than a second ago is never trusted by its identity alone
  rc "$u" -- --profiles-dir "$CASE/profiles" -- true
  rc "$u" -- --profiles-dir "$CASE/profiles" -- true
  expect "a profiles dir run is cached" 0 hit
  touch "$CASE/profiles/60-agents/"*.sb
  rc "$u" -- --profiles-dir "$CASE/profiles" -- true
  expect "touching a fragment is a miss" 0 miss
  case $WHY in *changed*) ok "$u: it says what changed ($WHY)" ;; *) bad "$u: reason: $WHY" ;; esac
  rc "$u" -- --profiles-dir "$CASE/profiles" -- true
  expect "a fragment changed less than a second ago is not cached yet (racy)" 0 miss
  sleep 1.1
  rc "$u" -- --profiles-dir "$CASE/profiles" -- true
  rc "$u" -- --profiles-dir "$CASE/profiles" -- true
  expect "then it is" 0 hit

  mkdir -p "$CASE/bin"
  cp "$CORDON" "$CASE/bin/cordon"
  [ -e "$CORDON-full" ] && cp "$CORDON-full" "$CASE/bin/cordon-full"  # the static front's other half
  chmod 755 "$CASE/bin" "$CASE/bin"/cordon*
  RUN_BIN="$CASE/bin/cordon" rc "$u" -- -- true
  RUN_BIN="$CASE/bin/cordon" rc "$u" -- -- true
  expect "a copied binary caches its runs" 0 hit
  cp "$CORDON" "$CASE/bin/cordon.new" && mv "$CASE/bin/cordon.new" "$CASE/bin/cordon"
  RUN_BIN="$CASE/bin/cordon" rc "$u" -- -- true
  expect "replacing the binary is a miss" 0 miss
  if [ -e "$CORDON-full" ]; then
    RUN_BIN="$CASE/bin/cordon" rc "$u" -- -- true
    cp "$CORDON-full" "$CASE/bin/cordon-full.new" && mv "$CASE/bin/cordon-full.new" "$CASE/bin/cordon-full"
    RUN_BIN="$CASE/bin/cordon" rc "$u" -- -- true
    expect "replacing cordon-full (the front's other half) is a miss too" 0 miss
    rm "$CASE/bin/cordon-full"
    RUN_BIN="$CASE/bin/cordon" rc "$u" -- -- true
    case $ERR in *"cannot start"*cordon-full*) ok "$u: without cordon-full the front says so" ;;
                 *) bad "$u: without cordon-full: $ERR" ;; esac
    check "$u: and fails closed (exit 125)" test "$RC" = 125
  fi

  # --- entries nobody else may have written; damaged entries ---------------------------------------
  rc "$u" -- -- id
  rc "$u" -- -- id
  expect "primed for the entry checks" 0 hit
  e=$(entry)
  chmod g+w "$e"
  rc "$u" -- -- id
  expect "an entry writable by the group is ignored" 0 miss
  case $WHY in *writable*|*owned*) ok "$u: it says why ($WHY)" ;; *) bad "$u: reason: $WHY" ;; esac
  rc "$u" -- -- id
  expect "rewritten afterwards" 0 hit
  if [ "$u" = root ] && id "$TEST_USER" >/dev/null 2>&1; then
    chown "$TEST_USER" "$(entry)"
    rc "$u" -- -- id
    expect "an entry owned by another user is ignored" 0 miss
  fi
  rc "$u" -- -- id
  e=$(entry)
  truncate -s 200 "$e"
  rc "$u" -- -- id
  expect "a truncated entry is a miss, no crash" 0 miss
  head -c 4096 /dev/urandom >"$(entry)"
  rc "$u" -- -- id
  expect "a garbage entry is a miss" 0 miss
  printf 'CORDONRC\001\000\000\000\377\377\377\377' >"$(entry)"
  rc "$u" -- -- id
  expect "an entry claiming a huge length is a miss" 0 miss
  rc "$u" -- -- id
  expect "and the entry is good again" 0 hit

  # the static front has no libseccomp: an entry whose stored program is not for this machine (its
  # kernel line altered, same length) is a miss there, and cordon-full builds the filter and hits
  if [ -e "$CORDON-full" ]; then
    rc "$u" -- -- sh -c 'echo x >/etc/cordon-front-check || exit 42'
    rc "$u" -- -- sh -c 'echo x >/etc/cordon-front-check || exit 42'
    perl -pi -e 's/seccomp-format/seccomp-formaX/' "$(entry)"
    rc "$u" -- -- sh -c 'echo x >/etc/cordon-front-check || exit 42'
    case $ERR in *"miss (no seccomp program stored"*"run-cache: hit"*) ok "$u: the front hands it to cordon-full, which hits" ;;
                 *) bad "$u: front without a stored program: $(printf '%s' "$ERR" | tr '\n' ' ')" ;; esac
    check "$u: and the run is as sandboxed (exit $RC)" test "$RC" = 42
    check "$u: nothing was written" test ! -e /etc/cordon-front-check
  fi
done
finish
