#!/usr/bin/env bash
# tests/enforce/test_fs.sh — the filesystem under `cordon run` (workspace-write, default tree), as root
# and as an unprivileged user: what the workdir allows, and every denied case leaving its target unchanged.
. "$(dirname "$0")/lib.sh"

for u in $USERS; do
  new_case "$u"

  # --- allowed -------------------------------------------------------------------------------------
  check "$u: reads and writes inside the workdir" sbx "$u" -- sh -c 'cat file >/dev/null && echo new >new && mkdir d && mv new d/ && rm -r d'
  check "$u: reads system files" sbx "$u" -- sh -c 'cat /etc/passwd >/dev/null && ls /usr/bin >/dev/null'
  check "$u: runs sh and env" sbx "$u" -- sh -c 'env >/dev/null && sh -c true'
  if command -v python3 >/dev/null; then
    check "$u: runs python3" sbx "$u" -- python3 -c 'print(1)'
  fi
  check "$u: writes /dev/null" sbx "$u" -- sh -c 'echo x >/dev/null'
  check "$u: git commit in the workdir (objects, index, refs writable)" \
    sbx "$u" -- sh -c 'echo c >c.txt && git add c.txt && git -c user.email=t@example.com -c user.name=t commit -q -m c || { git status; exit 1; }'
  check "$u: the commit is there afterwards" test "$(git -c safe.directory="*" -C "$W" log --format=%s -1)" = c

  # --- denied, target unchanged ---------------------------------------------------------------------
  # denied "description" TARGET CMD…: the command runs inside the sandbox and fails (exit 42 comes only
  # from the inner shell, so cordon's own failure cannot pass for a denial), and TARGET keeps its state
  denied() {
    local d=$1 target=$2
    shift 2
    local before after rc
    before=$(state "$target")
    local err
    err=$(sbx "$u" -- sh -c '"$@" || exit 42' sh "$@" 2>&1 >/dev/null)
    rc=$?
    if [ "$rc" -ne 42 ]; then bad "$u: $d (exit $rc, expected the command to run and fail: $err)"; return; fi
    after=$(state "$target")
    if [ "$before" = "$after" ]; then ok "$u: $d"; else bad "$u: $d (target changed: $before -> $after)"; fi
  }
  denied "write outside the workdir" "$O/file" sh -c "echo evil >'$O/file'"
  denied "create a file outside the workdir" "$O/new" sh -c "echo evil >'$O/new'"
  denied "read ~/.ssh/id_*" "$H/.ssh/id_ed25519" cat "$H/.ssh/id_ed25519"
  denied "read a cloud credentials file" "$H/.aws/credentials" cat "$H/.aws/credentials"
  denied "write .git/hooks/*" "$W/.git/hooks/pre-commit" sh -c 'echo evil >.git/hooks/pre-commit'
  denied "write .git/config" "$W/.git/config" sh -c 'echo "[core] fsmonitor = evil" >>.git/config'
  denied "write ~/.bashrc" "$H/.bashrc" sh -c "echo evil >>'$H/.bashrc'"
  rm -rf "$W/.git/hooks"
  # git's layout rules (the gate): an empty hooks directory is harmless (git init makes one), a hook is not
  denied "create a hook in a missing .git/hooks" "$W/.git/hooks/pre-commit" sh -c 'mkdir -p .git/hooks && echo evil >.git/hooks/pre-commit'
  check "$u: no hook on the host afterwards" test ! -e "$W/.git/hooks/pre-commit"
  denied "create a missing protected directory (.agents)" "$W/.agents" sh -c 'mkdir -p .agents/x'
  check "$u: nothing stands in for the missing .agents on the host afterwards" test ! -e "$W/.agents"
  ln -s "$O/file" "$W/link-out"
  denied "write outside through a symlink in the workdir" "$O/file" sh -c 'echo evil >link-out'
  denied "hardlink a file from outside into the workdir" "$W/hard" ln "$O/file" hard
  # a repository renamed away stays one (objects and refs), and one renamed back is checked whole
  denied "rename .git away, add a hook, rename it back" "$W/.git/hooks/pre-commit" \
    sh -c 'mv .git .git-moved; echo evil >.git-moved/hooks/pre-commit; mv .git-moved .git; test -e .git/hooks/pre-commit'
  mv "$W/.git-moved" "$W/.git" 2>/dev/null || true
  mkdir -p "$W/.git/hooks"
  denied "replace .git/hooks by renaming a directory with a hook onto it" "$W/.git/hooks/pre-commit" \
    sh -c 'mkdir h && echo evil >h/pre-commit && mv .git/hooks .git/hooks-old; mv h .git/hooks; test -e .git/hooks/pre-commit'
  denied "write outside through /proc/self/root" "$O/file" sh -c "echo evil >/proc/self/root'$O/file'"
  as_exec "$u" "$O" "$H" sleep 30 &
  outside_pid=$!
  BG_PIDS="$BG_PIDS $outside_pid"
  sleep 0.3
  if [ -n "$outside_pid" ]; then
    denied "reach a file through /proc/<pid>/cwd of a process outside" "$O/file" sh -c "echo evil >/proc/$outside_pid/cwd/file"
    denied "read /proc/<pid>/cwd of a process outside" "$O/file" ls "/proc/$outside_pid/cwd/"
  else
    bad "$u: could not start a process outside the sandbox"
  fi

  # --- the home directory as the workdir: start-up files and the plan cache stay out of reach ---------
  in_home() {  # in_home "description" TARGET CMD: like denied, with HOME itself writable
    local d=$1 target=$2 before after rc
    shift 2
    before=$(state "$target")
    local err
    err=$(as "$u" "$H" "$H" "$CORDON" run --workdir "$H" -- sh -c '"$@" || exit 42' sh "$@" 2>&1 >/dev/null)
    rc=$?
    [ "$rc" -eq 125 ] && echo "cordon: $err"
    after=$(state "$target")
    if [ "$rc" -eq 42 ] && [ "$before" = "$after" ]; then ok "$u: $d"; else bad "$u: $d (exit $rc, $before -> $after)"; fi
  }
  check "$u: with HOME as the workdir, files in it are writable" \
    as "$u" "$H" "$H" "$CORDON" run --workdir "$H" -- sh -c 'echo x >notes.txt && rm notes.txt'
  in_home "with HOME writable, ~/.bashrc stays read-only" "$H/.bashrc" sh -c 'echo evil >>.bashrc'
  in_home "with HOME writable, a missing ~/.zshrc cannot be created" "$H/.zshrc" sh -c 'echo evil >.zshrc'
  in_home "with HOME writable, no plan can be planted in the plan cache" "$H/.cache/cordon/linux-plans/planted.json" \
    sh -c 'mkdir -p .cache/cordon/linux-plans && echo {} >.cache/cordon/linux-plans/planted.json'
done
finish
