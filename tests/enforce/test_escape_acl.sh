#!/usr/bin/env bash
# tests/enforce/test_escape_acl.sh — issue 9, class 8, inside the writable roots: a POSIX ACL set through
# an extended attribute (system.posix_acl_access) gave every other account write access to .git/config,
# .vscode/tasks.json, ~/.bashrc or HOME itself, past every mode the gate decides (found by the seventh
# session's attack; on a shared machine another account then plants a hook the owner's next git runs).
# Now the whole setxattr family answers EOPNOTSUPP inside, as root and unprivileged: the host sees the
# same mode and no ACL afterwards, while the same call made on the host does set one (the control).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3 to set the ACL"

# acl PATH: an ACL giving other accounts rwx (version 2; USER_OBJ rw, GROUP_OBJ rw, MASK rwx, OTHER rwx)
ACL='import os, struct, sys
blob = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, 0xffffffff) for t, p in
       ((0x01, 6), (0x04, 6), (0x10, 7), (0x20, 7)))
for path in sys.argv[1:]:
    try:
        os.setxattr(path, "system.posix_acl_access", blob); print("set", path)
    except OSError as e:
        print("refused", path, e.errno)
    try:
        os.setxattr(path, "user.note", b"x"); print("set-user", path)
    except OSError as e:
        print("refused-user", path, e.errno)'

for u in $USERS; do
  new_case "$u"
  git -C "$W" init -q 2>/dev/null
  mkdir -p "$W/.vscode" && echo '{}' >"$W/.vscode/tasks.json" && echo x >"$W/plain"
  chown -R "$u" "$W"
  targets="$W/.git/config $W/.git/hooks $W/.vscode/tasks.json $W/plain $W"
  before=$(stat -c '%a %n' $targets)
  out=$(sbx "$u" -- python3 -c "$ACL" $targets 2>&1)
  check "$u: no ACL could be set inside (every call refused)" test -z "$(grep '^set' <<<"$out")"
  expect_eq "$u: the modes on the host are unchanged" "$(stat -c '%a %n' $targets)" "$before"
  # control: on the host the same call sets an ACL (where the file system has them)
  ctl=$(host "$u" python3 -c "$ACL" "$W/plain" 2>&1)
  case $ctl in
    *"set $W/plain"*) check "$u: control: on the host the ACL opens the file to others" \
                        test "$(stat -c %a "$W/plain")" = 667 -o "$(stat -c %a "$W/plain")" = 677 ;;
    *) echo "note: this file system takes no ACLs ($ctl); the control is skipped" ;;
  esac
done
finish
