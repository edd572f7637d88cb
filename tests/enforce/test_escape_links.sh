#!/usr/bin/env bash
# tests/enforce/test_escape_links.sh — issue 9, classes 2 and 7: protected files that are symbolic links.
# The protection sat on the link's name; a write through the link, or to its target under another name,
# landed on an ordinary work-tree file that the host then ran: a hook installed as a link into the tree
# (`.git/hooks/pre-commit -> ../../scripts/pre-commit`), a hooks directory that is a link
# (`.git/hooks -> ../githooks`), and start-up files kept by a dotfile manager (`~/.bashrc ->
# dotfiles/bashrc`, `~/.config/nvim -> ../dotfiles/nvim`) with the workdir HOME or the dotfiles
# directory. Now each target is read-only inside (as root and unprivileged), and the host's next
# `git commit` / `bash -i` runs nothing planted; the control makes the same change on the host.
# Also: a hard link made inside to a protected object is refused (the gate decides link() on the target),
# and a start-up file hard-linked into a writable root before the run is refused under its other name.
. "$(dirname "$0")/lib.sh"

for u in $USERS; do
  for variant in hook-file hooks-dir; do
    new_case "$u"
    git -C "$W" init -q 2>/dev/null
    if [ $variant = hook-file ]; then
      mkdir -p "$W/scripts" && printf '#!/bin/sh\nexit 0\n' >"$W/scripts/pre-commit" && chmod +x "$W/scripts/pre-commit"
      ln -s ../../scripts/pre-commit "$W/.git/hooks/pre-commit"; T=scripts/pre-commit; K=$T
    else
      mkdir -p "$W/githooks" && printf '#!/bin/sh\nexit 0\n' >"$W/githooks/pre-commit" && chmod +x "$W/githooks/pre-commit"
      rm -rf "$W/.git/hooks" && ln -s ../githooks "$W/.git/hooks"; T=githooks/pre-commit; K=githooks
    fi
    echo x >"$W/f"
    chown -R "$u" "$W" "$H"
    sbx "$u" -- sh -c "printf '#!/bin/sh\ntouch $O/marker\n' >$T; printf '#!/bin/sh\ntouch $O/marker\n' >.git/hooks/pre-commit" \
      >/dev/null 2>&1
    host "$u" sh -c "git add f && git -c user.email=a@b -c user.name=a commit -qm one" >/dev/null 2>&1
    check "$u ($variant): the host's git commit runs nothing planted through the link" test ! -e "$O/marker"
    check "$u ($variant): explain names the link's target as protected" \
      grep -qF "\"$W/$K\"" <<<"$(as "$u" "$W" "$H" "$CORDON" explain --workdir "$W" 2>&1; \
        as "$u" "$W" "$H" "$CORDON" policy --platform linux --workdir "$W" 2>&1)"
    # control: the same write on the host is run by the next commit
    host "$u" sh -c "printf '#!/bin/sh\ntouch $O/marker\n' >$T; echo y >>f; git add f && git -c user.email=a@b -c user.name=a commit -qm two" >/dev/null 2>&1
    check "$u ($variant): control: the target written on the host runs at the next commit" test -e "$O/marker"
  done

  for workdir in home dotfiles; do
    new_case "$u"
    mkdir -p "$H/dotfiles/nvim" "$H/.config"
    printf '# the user\x27s bashrc\n' >"$H/dotfiles/bashrc"
    echo '" init' >"$H/dotfiles/nvim/init.vim"
    ln -sfn dotfiles/bashrc "$H/.bashrc"
    ln -s ../dotfiles/nvim "$H/.config/nvim"
    chown -R "$u" "$H"
    wd=$H; [ $workdir = dotfiles ] && wd=$H/dotfiles
    as "$u" "$wd" "$H" "$CORDON" run --workdir "$wd" -- sh -c "
      echo 'touch $O/marker' >>'$H/dotfiles/bashrc'; echo 'touch $O/marker' >>'$H/.bashrc'
      echo 'evil' >>'$H/dotfiles/nvim/init.vim'; echo evil >'$H/dotfiles/nvim/plugin.vim'" >/dev/null 2>&1
    as "$u" "$H" "$H" bash -ic true >/dev/null 2>&1 </dev/null
    check "$u (workdir $workdir): the host's bash -i runs nothing written through ~/.bashrc's link" test ! -e "$O/marker"
    expect_eq "$u (workdir $workdir): ~/.config/nvim's target is unchanged" \
      "$(cat "$H/dotfiles/nvim/init.vim"; ls "$H/dotfiles/nvim")" "$(printf '%s\n%s' '" init' init.vim)"
    # the rest of the dotfiles directory stays writable
    as "$u" "$wd" "$H" "$CORDON" run --workdir "$wd" -- sh -c "echo ok >'$H/dotfiles/README'" >/dev/null 2>&1
    expect_eq "$u (workdir $workdir): the rest of the dotfiles directory stays writable" "$(cat "$H/dotfiles/README" 2>/dev/null)" ok
  done
done
# A hard link made inside to a protected object (finding 4, the inside half): link() of a hook, of
# .git/config and (workdir HOME) of ~/.bashrc is refused, so no second, unprotected name appears through
# which the host's hook or start-up file could be written. A link to an ordinary file still works.
for u in $USERS; do
  new_case "$u"; R="$H/proj"
  host "$u" sh -c "mkdir -p '$R' && git -C '$R' init -q && printf '#!/bin/sh\n' >'$R/.git/hooks/pre-commit' && echo '# rc' >'$H/.bashrc' && echo x >'$R/plain'"
  as "$u" "$H" "$H" "$CORDON" run --workdir "$H" -- sh -c \
    "ln '$R/.git/hooks/pre-commit' '$R/h2'; ln '$R/.git/config' '$R/c2'; ln '$H/.bashrc' '$R/b2'; ln '$R/plain' '$R/p2'" >/dev/null 2>&1
  check "$u: no hard link to the hook, the config or ~/.bashrc was made" test ! -e "$R/h2" -a ! -e "$R/c2" -a ! -e "$R/b2"
  check "$u: links of the protected files still 1" test "$(stat -c %h "$R/.git/hooks/pre-commit" "$R/.git/config" "$H/.bashrc" | sort -u)" = 1
  check "$u: a hard link to an ordinary work-tree file still works" test "$R/p2" -ef "$R/plain"
done
# A start-up file that is a hard link into a writable root, made before the run (finding 4, the other
# half): `ln dotfiles/bashrc ~/.bashrc`, workdir ~/dotfiles. The gate knows the protected file by its
# device and inode, looked at when the run starts, and refuses writing it under any name.
for u in $USERS; do
  new_case "$u"
  mkdir -p "$H/dotfiles" && printf '# the user\x27s bashrc\n' >"$H/dotfiles/bashrc" && ln -f "$H/dotfiles/bashrc" "$H/.bashrc"
  echo '[user]' >"$H/dotfiles/gitconfig" && ln -f "$H/dotfiles/gitconfig" "$H/.gitconfig"
  chown -R "$u" "$H"
  as "$u" "$H/dotfiles" "$H" "$CORDON" run --workdir "$H/dotfiles" -- sh -c "echo ok >README
    echo 'touch $O/marker' >>bashrc; printf '[core]\n\tfsmonitor = touch $O/marker\n' >>gitconfig
    truncate -s 0 bashrc" >/dev/null 2>&1
  as "$u" "$H" "$H" bash -ic true >/dev/null 2>&1 </dev/null
  as "$u" "$H/dotfiles" "$H" sh -c 'git init -q . && git status' >/dev/null 2>&1
  check "$u: the host's bash -i and git ran nothing written through a hard link of ~/.bashrc or ~/.gitconfig" test ! -e "$O/marker"
  expect_eq "$u: ~/.bashrc is unchanged" "$(cat "$H/.bashrc")" "# the user's bashrc"
  expect_eq "$u: the rest of the dotfiles directory stays writable" "$(cat "$H/dotfiles/README" 2>/dev/null)" ok
done
finish
