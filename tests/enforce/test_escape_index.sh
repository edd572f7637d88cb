#!/usr/bin/env bash
# tests/enforce/test_escape_index.sh — the index as a way out (findings 13 and 14): an index written inside
# whose entries name .git/hooks/pre-commit, or stage the sandbox's content for a protected path
# (.husky/pre-commit, .vscode/tasks.json, .envrc), is written by the host's own `git restore .`, and the
# next commit runs it. Each case plants from inside, runs the host's restore and commit, and checks the
# marker and the file on the host; the controls show git's own staging and commits still work inside.
. "$(dirname "$0")/lib.sh"

hook='#!/bin/sh\necho pwned >"%s"\n'
# gitc USER ARGS…: the host's own git, as USER in $W
gitc() { local u=$1; shift; host "$u" git -c user.email=t@example.com -c user.name=t "$@"; }
# prepare USER: the index writer where the run may execute it, kept out of git's way
prepare() {
  cp "$ENFORCE_DIR/mkindex.py" "$W/.mk.py" && echo .mk.py >>"$W/.git/info/exclude" && chown -R "$1" "$W"
}

for u in $USERS; do
  # 13: an entry with a .git component, written in place and by git's own lock-and-rename
  for how in inplace lock; do
    new_case "$u"
    echo a >"$W/a"; prepare "$u"; gitc "$u" add a; gitc "$u" commit -qm a
    if [ $how = inplace ]; then out=.git/index; else out=.git/index.lock; fi
    sbx "$u" -- sh -c "b=\$(printf '$hook' '$O/marker' | git hash-object -w --stdin); a=\$(git rev-parse HEAD:a)
      python3 .mk.py $out a \$a 100644 .git/hooks/pre-commit \$b 100755 && { [ $how = inplace ] || mv .git/index.lock .git/index; }" >/dev/null 2>&1
    expect_eq "$u/index-$how: the crafted index did not replace the index" "$(test -e "$W/.git/index.cordon-probe" || python3 -c "
import sys; d=open(sys.argv[1],'rb').read(); print('hooks' if b'.git/hooks' in d else 'clean')" "$W/.git/index")" clean
    host "$u" git restore . >/dev/null 2>&1
    gitc "$u" commit -q --allow-empty -m next >/dev/null 2>&1
    expect_eq "$u/index-$how: the host's restore writes no hook from a crafted .git/hooks entry" "$(state "$W/.git/hooks/pre-commit")" absent
    expect_eq "$u/index-$how: and the host's next commit runs nothing" "$(state "$O/marker")" absent
  done

  # 13 by another door: an index written in a plain directory that then becomes a git directory, by
  # pieces (and a .git pointer file) or moved whole as .git
  for how in parts moved; do
    new_case "$u"
    echo a >"$W/a"; prepare "$u"; gitc "$u" add a; gitc "$u" commit -qm a
    if [ $how = parts ]; then swap='cp -r .git/objects .git/refs .git/HEAD g2/ && mv .git g3 && echo "gitdir: g2" >.git'
    else swap='mv .git g3 && mv g2 .git && cp -r g3/objects g3/refs g3/HEAD .git/'; fi
    sbx "$u" -- sh -c "b=\$(printf '$hook' '$O/marker' | git hash-object -w --stdin); a=\$(git rev-parse HEAD:a)
      mkdir g2 && python3 .mk.py g2/index a \$a 100644 .git/hooks/pre-commit \$b 100755 && $swap" >/dev/null 2>&1
    host "$u" git restore . >/dev/null 2>&1
    gitc "$u" commit -q --allow-empty -m next >/dev/null 2>&1
    expect_eq "$u/index-$how: no hook is written from an index made before its directory was a repository" \
      "$(state "$W/.git/hooks/pre-commit")" absent
    expect_eq "$u/index-$how: and the host's next commit runs nothing" "$(state "$O/marker")" absent
  done

  # 14: plumbing stages the sandbox's content for a protected path
  for p in .husky/pre-commit .vscode/tasks.json .envrc; do
    new_case "$u"
    mkdir -p "$W/$(dirname "$p")"; echo true >"$W/$p"; prepare "$u"; gitc "$u" add "$p"; gitc "$u" commit -qm init
    [ "$p" = .husky/pre-commit ] && gitc "$u" config core.hooksPath .husky/_  # what makes .husky protected
    before=$(state "$W/$p")
    sbx "$u" -- sh -c "b=\$(printf '$hook' '$O/marker' | git hash-object -w --stdin) && git update-index --cacheinfo 100755,\$b,$p" >"$CASE/out" 2>&1
    check "$u/index-protected $p: the gate says to stage it outside" grep -q "stage that file outside the sandbox" "$CASE/out"
    host "$u" git restore . >/dev/null 2>&1
    expect_eq "$u/index-protected $p: the host's restore leaves it as it was" "$(state "$W/$p")" "$before"
    expect_eq "$u/index-protected $p: what the host has staged is still its own" \
      "$(host "$u" git diff --cached --name-only)" ""
  done

  # controls: git's own staging inside, a protected file the host changed staged as it is on disk
  new_case "$u"
  echo true >"$W/.envrc"; prepare "$u"; gitc "$u" add .envrc; gitc "$u" commit -qm init
  echo 'export A=1' >"$W/.envrc"
  sbx "$u" -- sh -c "echo x >new && git add -A && git -c user.email=t@example.com -c user.name=t commit -qm inside &&
    git checkout -q -b side && git stash list >/dev/null && git reset -q HEAD && git read-tree HEAD && echo ok" >"$CASE/out" 2>&1
  expect_eq "$u/index-control: add, commit, checkout, reset and read-tree work inside" "$(tail -1 "$CASE/out")" ok
  expect_eq "$u/index-control: the host's own .envrc change was committed as it is on disk" \
    "$(host "$u" git show HEAD:.envrc)" "export A=1"
  sbx "$u" -- sh -c "python3 .mk.py .git/index.lock new \$(git rev-parse HEAD:new) 100644 && mv .git/index.lock .git/index && echo ok" >"$CASE/out" 2>&1
  expect_eq "$u/index-control: a hand-written index of plain entries may replace the index" "$(tail -1 "$CASE/out")" ok
done
finish
