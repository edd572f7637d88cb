#!/usr/bin/env bash
# tests/enforce/test_view.sh — the run's view of the file system (docs/linux-sandbox.md, "The view"), as
# root and as an unprivileged user: a directory listed on the way to a grant shows its real names, but an
# entry the policy does not grant is an empty stub that nothing can be read from or written into; a
# protected path that is missing stays missing inside and cannot be created; /dev holds only the devices
# the design names; the host can look at the run's /tmp while it lasts; and nothing of any of this ever
# exists on the host, during the run or after it (no placeholders, nothing to clean).
. "$(dirname "$0")/lib.sh"

for u in $USERS; do
  new_case "$u"
  echo "secret notes" >"$CASE/notes.txt"
  ln -s work "$CASE/work-link"
  chown -h "$u" "$CASE/notes.txt" "$CASE/work-link"
  # what the host holds around the run: the parent's names, the stubbed siblings, the workdir's and
  # HOME's names (the run cache's entries change below ~/.cache, which is cordon's own)
  around() { ls -A "$CASE" "$W" "$W/.git" "$H"; tree_state "$O"; state "$CASE/notes.txt"; }
  sbx "$u" -- true
  host_before=$(around)

  # --- a listing view on the way to the workdir: real names, empty stubs, nothing writable -------------
  out=$(sbx "$u" -- ls -A "$CASE")
  expect_eq "$u: the workdir's parent lists its real names" "$out" "$(ls -A "$CASE")"
  out=$(sbx "$u" -- sh -c "ls -A '$O'; cat '$O/file' 2>/dev/null; cat '$CASE/notes.txt' 2>/dev/null; echo end")
  expect_eq "$u: an ungranted directory beside the workdir is an empty stub, an ungranted file an empty one" "$out" end
  out=$(sbx "$u" -- readlink "$CASE/work-link")
  expect_eq "$u: a symlink on the way is copied as it is" "$out" work
  out=$(sbx "$u" -- sh -c "cd '$CASE/work-link' && cat file")
  expect_eq "$u: ... and resolves inside as outside" "$out" inside
  err=$(sbx "$u" -- sh -c "echo evil >'$O/new' || echo evil >'$CASE/new' || mkdir '$CASE/newdir' || echo evil >>'$CASE/notes.txt' || exit 42" 2>&1)
  rc=$?
  check "$u: nothing can be made or written in a listing view or its stubs (exit $rc: $(echo $err))" test $rc -eq 42
  expect_eq "$u: ... and the host's directory is unchanged" "$(around)" "$host_before"

  # --- missing protected paths stay missing: nothing stands in for them, inside or on the host ----------
  out=$(sbx "$u" -- sh -c 'for p in .envrc .cordon.yaml .git/hooks/pre-commit "$HOME/.gitconfig"; do [ -e "$p" ] && echo "$p exists"; done; echo end')
  expect_eq "$u: a missing protected path is missing inside too (no stand-in)" "$out" end
  host_out=$(host "$u" git config --global --list 2>&1; echo "exit $?")
  out=$(sbx "$u" -- sh -c 'git config --global --list 2>&1; echo "exit $?"')
  expect_eq "$u: git config --global --list without a ~/.gitconfig behaves as on the host" "$out" "$host_out"
  out=$(sbx "$u" -- git status --porcelain --untracked-files=all)
  expect_eq "$u: git status in the workdir sees what it sees on the host" "$out" "$(host "$u" git status --porcelain --untracked-files=all)"
  sbx "$u" -- sh -c 'echo evil >.envrc; echo "profile: danger-full-access" >.cordon.yaml; mkdir -p .cordon/x' 2>/dev/null
  check "$u: protected names cannot be created in the workdir (outcome: absent on the host)" \
    test ! -e "$W/.envrc" -a ! -e "$W/.cordon.yaml" -a ! -e "$W/.cordon"
  as "$u" "$H" "$H" "$CORDON" run --workdir "$H" -- sh -c 'git config --global core.hooksPath /evil; echo evil >.gitconfig' 2>/dev/null
  check "$u: with HOME as the workdir, a missing ~/.gitconfig cannot be created" test ! -e "$H/.gitconfig"
  rm -rf "$W/.envrc" "$W/.cordon.yaml" "$W/.cordon" "$H/.gitconfig"  # what got through is reported above
  # HOME as the workdir, with a repository under it, then kept in git itself (dotfiles)
  git init -q "$H/proj" && chown -R "$u" "$H/proj"
  out=$(as "$u" "$H" "$H" "$CORDON" run --workdir "$H" -- sh -c 'git config --global --list 2>&1; echo "exit $?"; git -C proj status --short; echo "exit $?"')
  expect_eq "$u: with HOME as the workdir, git config --global and git status in a repository under it behave as on the host" \
    "$out" "$(as "$u" "$H" "$H" sh -c 'git config --global --list 2>&1; echo "exit $?"; git -C proj status --short; echo "exit $?"')"
  git init -q "$H" && chown -R "$u" "$H/.git"
  # (what HOME's secrets hide inside, git cannot list there: only what inside adds counts)
  # (stderr apart: ~/.git is one of HOME's dot-entries, read-only inside, so status cannot refresh the index
  # there and cordon says so once; git itself carries on, as it does on any read-only repository)
  as "$u" "$H" "$H" "$CORDON" run --workdir "$H" -- git status --porcelain --untracked-files=all >"$CASE/status-inside" 2>"$CASE/status-err"
  as "$u" "$H" "$H" git status --porcelain --untracked-files=all >"$CASE/status-host" 2>&1
  expect_eq "$u: with HOME a git work tree, git itself reports no error inside" "$(grep -v '^cordon: refused ' "$CASE/status-err")" ""
  expect_eq "$u: with HOME a git work tree, git status inside lists nothing the host does not" \
    "$(LC_ALL=C comm -23 <(LC_ALL=C sort "$CASE/status-inside") <(LC_ALL=C sort "$CASE/status-host"))" ""
  rm -f "$CASE/status-inside" "$CASE/status-host" "$CASE/status-err"
  rm -rf "$H/.git" "$H/proj"

  # --- /dev: the devices the design names and the run's own terminal devices, nothing of the host's -----
  out=$(sbx "$u" -- ls -A /dev | tr '\n' ' ')
  expect_eq "$u: /dev holds only the run's devices" "$out" "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero "
  out=$(sbx "$u" -- sh -c 'echo x >/dev/null && head -c 4 /dev/zero | wc -c && head -c 4 /dev/urandom | wc -c')
  expect_eq "$u: /dev/null, /dev/zero and /dev/urandom work" "$(echo $out)" "4 4"

  # --- hidden paths: each binds one shared mask, which keeps its flags and holds nothing ----------------
  if [ -f /etc/shadow ] && [ -d /etc/ssl/private ]; then
    ssl_before=$(ls -A /etc/ssl/private; stat -c %Y /etc/ssl/private)
    out=$(sbx "$u" -- sh -c 'awk "\$5 == \"/etc/shadow\" || \$5 == \"/etc/ssl/private\" {print \$5, \$6}" /proc/self/mountinfo | sort;
      head -c 1 /etc/shadow 2>/dev/null; ls -A /etc/ssl/private; echo evil >/etc/ssl/private/x 2>/dev/null;
      echo evil >/etc/shadow 2>/dev/null; head -n 1 /etc/passwd | cut -d: -f1')
    expect_eq "$u: a hidden file and a hidden directory are read-only, nodev, nosuid, noexec and empty; /etc/passwd still reads" \
      "$(echo $out)" "/etc/shadow ro,nosuid,nodev,noexec,relatime /etc/ssl/private ro,nosuid,nodev,noexec,relatime $(head -n 1 /etc/passwd | cut -d: -f1)"
    expect_eq "$u: ... and the host's /etc/ssl/private is unchanged" "$(ls -A /etc/ssl/private; stat -c %Y /etc/ssl/private)" "$ssl_before"
  fi

  # --- the host can look at the run's /tmp and /dev/shm while it lasts -----------------------------------
  rm -f "$W/ready"
  as_exec "$u" "$W" "$H" "$CORDON" run --workdir "$W" -- \
    sh -c 'echo from-inside >/tmp/hello && echo shm >/dev/shm/hello && echo >ready && sleep 3' &
  sup=$!
  wait_for "$W/ready" 50
  seen=$(cat "/proc/$sup/root/tmp/hello" "/proc/$sup/root/dev/shm/hello" 2>&1 | tr '\n' ' ')
  expect_eq "$u: the host reads the run's /tmp and /dev/shm at /proc/<cordon>/root" "$seen" "from-inside shm "
  check "$u: ... and not in its own /tmp" test ! -e /tmp/hello -o "$(cat /tmp/hello 2>/dev/null)" != from-inside
  wait "$sup"

  # --- after all of these runs, the host holds nothing of any view --------------------------------------
  rm -f "$W/ready"
  expect_eq "$u: nothing of any view is left around the workdir" "$(around)" "$host_before"
done
finish
