#!/usr/bin/env bash
# tests/enforce/test_escape_modes.sh — modes that open a repository to other accounts (finding 10's rest):
# `chmod 777 .git .git/hooks` and the workdir, `umask 0; git init x` inside. Another account (nobody)
# could then write a hook that the owner's next git commit runs. Inside, no chmod or creation gives
# other accounts write, nor the group write inside a git directory (the bits are dropped: tar, cp -a go on).
# Checked on the host: nobody's hook planted after the run does not run at the owner's commit; and the
# control: the same chmod on the host lets it.
. "$(dirname "$0")/lib.sh"
other=nobody
id "$other" >/dev/null 2>&1 || skip "no account '$other' to play another user"
as_other() { (cd "$1" && shift && exec setpriv --reuid="$other" --regid="$(id -g "$other")" --clear-groups "$@") 2>/dev/null; }
plant() {  # DIR: nobody writes a pre-commit hook there, if it can
  as_other "$1" sh -c "printf '#!/bin/sh\ntouch $O/marker\n' >.git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit"
}
commit() { host "$1" sh -c "cd '$2' && echo y >>f && git add f && git -c user.email=a@b -c user.name=a commit -qm m" >/dev/null 2>&1; }

for u in $USERS; do
  new_case "$u"
  sbx "$u" -- sh -c 'chmod 777 . .git .git/hooks .git/objects; umask 0; git init -q sub; mkdir -p d; chmod 775 d;
    echo x >f; chmod 666 f' >/dev/null 2>&1
  plant "$W"
  plant "$W/sub"
  commit "$u" "$W"
  host "$u" sh -c 'cd sub && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m m' >/dev/null 2>&1
  check "$u: the owner's commits ran no hook another account planted after the run" test ! -e "$O/marker"
  expect_eq "$u: modes on the host after the run" \
    "$(stat -c '%a' "$W" "$W/.git" "$W/.git/hooks" "$W/sub/.git/hooks" "$W/sub/.git/config" "$W/f" | tr '\n' ' ')" \
    "775 755 755 755 644 664 "
  expect_eq "$u: group write outside a git directory still works" "$(stat -c '%a' "$W/d")" "775"
  # control: the same chmod done on the host opens the repository to the other account
  host "$u" chmod 777 .git/hooks
  plant "$W"
  commit "$u" "$W"
  check "$u: control: after a chmod on the host, the other account's hook runs at the owner's commit" test -e "$O/marker"
  rm -f "$O/marker"
done
finish
