#!/usr/bin/env bash
# tests/enforce/test_escape_git.sh — issue 9, class 2: git obeys more than .git/hooks and .git/config.
# Each attack plants, inside `cordon run` (default tree, workspace-write, as root and as an unprivileged
# user), something the user's own git would run later outside the sandbox: hooks reached through
# commondir, a linked worktree's or a submodule's git directory, core.hooksPath inside the tree, an exec
# line in a rebase's todo list, the fsmonitor of a nested repository, a repository assembled from parts,
# a replaced `.git`, a `.git` made by `git init`. Then the HOST runs the ordinary command (git commit,
# git status, git rebase --continue) and the marker the planted code would create must be absent. Each
# attack is first run without cordon on a fresh copy to show that there it does create the marker (the
# control), so a passing test means the sandbox stopped it. Last, git's ordinary work inside still works.
. "$(dirname "$0")/lib.sh"

GIT="git -c user.email=t@example.com -c user.name=t -c protocol.file.allow=always"
# What every attack starts with: $M is the marker, hook FILE writes an executable hook creating it.
PRELUDE='M=$1
G="git -c user.email=t@example.com -c user.name=t"
hook() { mkdir -p "$(dirname "$1")"; printf "#!/bin/sh\ntouch \"%s\"\n" "$M" >"$1"; chmod +x "$1"; }
exec 2>/dev/null
'

# Setups, run on the host as the user in $W before the attack.
setup_none() { :; }
setup_worktree() { $GIT worktree add -q wt && git config extensions.worktreeConfig true; }
setup_submodule() {
  git init -q "$CASE/subsrc" && $GIT -C "$CASE/subsrc" commit -q --allow-empty -m sub &&
    $GIT submodule add -q "$CASE/subsrc" sub && $GIT commit -q -m "add sub"
}
setup_husky() {
  mkdir .husky && printf '#!/bin/sh\nexit 0\n' >.husky/pre-commit && chmod +x .husky/pre-commit &&
    git config core.hooksPath .husky && git add .husky && $GIT commit -q -m husky
}
setup_rebase() {
  local i
  for i in 1 2 3; do echo "$i" >"f$i" && git add "f$i" && $GIT commit -q -m "c$i"; done
  GIT_SEQUENCE_EDITOR="sed -i 1s/^pick/edit/" $GIT rebase -q -i HEAD~2 >/dev/null 2>&1
  [ -f .git/rebase-merge/git-rebase-todo ]
}
setup_dotgit_link() { mv .git .repo-git && ln -s .repo-git .git; }

# Attacks, inside the sandbox in $W ($1 = the marker). Every step is tried; any may be refused.
ATTACK_COMMONDIR='mkdir evil; cp -r .git/. evil/; hook evil/hooks/pre-commit
printf "[core]\n\thooksPath = %s/evil/hooks\n" "$PWD" >>evil/config
echo ../evil >.git/commondir || echo "$PWD/evil" >.git/commondir'
ATTACK_WORKTREE='mkdir evil; cp -r .git/. evil/; hook evil/hooks/pre-commit
echo "$PWD/evil" >.git/worktrees/wt/commondir
hook hk/pre-commit; printf "[core]\n\thooksPath = %s/hk\n" "$PWD" >.git/worktrees/wt/config.worktree
mkdir -p .git/worktrees/x; echo "$PWD/evil" >.git/worktrees/x/commondir
echo "$PWD/wtx/.git" >.git/worktrees/x/gitdir; git rev-parse HEAD >.git/worktrees/x/HEAD
mkdir wtx; echo "gitdir: $PWD/.git/worktrees/x" >wtx/.git'
ATTACK_MODULES='hook .git/modules/sub/hooks/pre-commit
hook hk/pre-commit; git -C sub config core.hooksPath "$PWD/hk"
printf "[core]\n\tfsmonitor = \"touch %s; false #\"\n" "$M" >>.git/modules/sub/config
git -C sub config core.fsmonitor "touch $M; false #"'
ATTACK_HUSKY='printf "touch \"%s\"\n" "$M" >>.husky/pre-commit
rm -f .husky/pre-commit; hook .husky/pre-commit
mv .husky .husky-old; hook .husky/pre-commit; hook .husky/pre-push'
ATTACK_REBASE='echo "exec touch $M" >>.git/rebase-merge/git-rebase-todo
{ echo "x touch $M"; cat .git/rebase-merge/git-rebase-todo; } >todo.new && mv todo.new .git/rebase-merge/git-rebase-todo
GIT_EDITOR="sh -c '\''echo exec touch $M >>\"\$1\"'\'' --" $G rebase --edit-todo'
ATTACK_FSMONITOR='git init -q nested && echo x >nested/f && git -C nested add f && $G -C nested commit -q -m f
git -C nested config core.fsmonitor "touch $M; false #"
printf "[core]\n\tfsmonitor = \"touch %s; false #\"\n" "$M" >>nested/.git/config
git add nested'
ATTACK_ASSEMBLED='mkdir pkg; cp -r .git/objects .git/refs .git/HEAD pkg/
printf "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = \"touch %s; false #\"\n" "$M" >pkg/config
mkdir pkg2; printf "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n" >pkg2/config; hook pkg2/hooks/pre-commit
cp -r .git/objects .git/refs .git/HEAD pkg2/'
ATTACK_DOTGIT_LINK='hook .git/hooks/pre-commit; hook .repo-git/hooks/pre-commit
rm .git; mkdir .git; cp -r .repo-git/. .git/; hook .git/hooks/pre-commit
rm -rf .git; git init -q; hook .git/hooks/pre-commit; hook hk/pre-commit; git config core.hooksPath "$PWD/hk"'
ATTACK_INIT='mkdir proj && cd proj && git init -q && touch ../init-worked
hook .git/hooks/pre-commit; hook ../hk/pre-commit; git config core.hooksPath "$(dirname "$PWD")/hk"
printf "[core]\n\tfsmonitor = \"touch %s; false #\"\n" "$M" >>.git/config
mv .git/hooks .git/hooks-old; hook .git/hooks/pre-commit'

# The user's own commands afterwards, on the host in $W.
VERDICT_COMMIT="$GIT commit -q --allow-empty -m after; git status"
VERDICT_WORKTREE="$GIT -C wt commit -q --allow-empty -m after; $GIT -C wtx commit -q --allow-empty -m after; git -C wt status"
VERDICT_MODULES="$GIT -C sub commit -q --allow-empty -m after; git status; git -C sub status"
VERDICT_REBASE="$GIT rebase --continue"
VERDICT_STATUS="git status"
VERDICT_ASSEMBLED="(cd pkg && git status); (cd pkg2 && git status && $GIT commit -q --allow-empty -m after)"
VERDICT_INIT="$GIT -C proj commit -q --allow-empty -m after; git -C proj status"

# escape "description" SETUP ATTACK VERDICT: the attack inside, the user's command on the host, the
# marker absent; for the first user also the control (the same without cordon creates the marker).
CONTROLLED=""
escape() {
  local d=$1 setup=$2 attack=$3 verdict=$4 u=$5 m
  for mode in control sandbox; do
    [ "$mode" = control ] && case " $CONTROLLED " in *" $setup:$d "*) continue ;; esac
    new_case "$u"
    m="$O/marker"
    if ! host "$u" bash -c "GIT='$GIT'; CASE='$CASE'; $(declare -f "$setup"); $setup" >/dev/null 2>&1; then
      bad "$u: $d: the setup on the host failed"; return
    fi
    if [ "$mode" = control ]; then
      host "$u" sh -c "$PRELUDE$attack" sh "$m"
    else
      sbx "$u" -- sh -c "$PRELUDE$attack" sh "$m"
    fi
    host "$u" sh -c "$verdict" >/dev/null 2>&1
    if [ "$mode" = control ]; then
      CONTROLLED="$CONTROLLED $setup:$d"
      check "control: $d: without cordon the user's next git command runs the planted code" test -e "$m"
    else
      check "$u: $d: the user's next git command outside runs nothing planted inside" test ! -e "$m"
    fi
  done
}

for u in $USERS; do
  escape ".git/commondir pointing at a copy of the repository with hooks" setup_none "$ATTACK_COMMONDIR" "$VERDICT_COMMIT" "$u"
  escape "a linked worktree's commondir, config.worktree, and a forged .git/worktrees entry" setup_worktree "$ATTACK_WORKTREE" "$VERDICT_WORKTREE" "$u"
  escape "a submodule's .git/modules/sub hooks and config" setup_submodule "$ATTACK_MODULES" "$VERDICT_MODULES" "$u"
  escape "core.hooksPath inside the tree (.husky/ set up on the host), edited, replaced, renamed" setup_husky "$ATTACK_HUSKY" "$VERDICT_COMMIT" "$u"
  escape "an exec line in .git/rebase-merge/git-rebase-todo (appended, renamed over, --edit-todo)" setup_rebase "$ATTACK_REBASE" "$VERDICT_REBASE" "$u"
  escape "core.fsmonitor of a nested repository registered as a gitlink" setup_none "$ATTACK_FSMONITOR" "$VERDICT_STATUS" "$u"
  escape "a repository assembled from parts in the workdir (config first, and config last)" setup_none "$ATTACK_ASSEMBLED" "$VERDICT_ASSEMBLED" "$u"
  escape "a .git that is a symlink, written through and replaced by a new repository" setup_dotgit_link "$ATTACK_DOTGIT_LINK" "$VERDICT_COMMIT" "$u"
  escape "a .git made by git init inside, then its hooks and config written" setup_none "$ATTACK_INIT" "$VERDICT_INIT" "$u"
  check "$u: ... and git init itself worked inside" test -f "$W/proj/.git/HEAD" -a -f "$W/init-worked"
done

# --- git's ordinary work inside, checked from the host ---------------------------------------------------
for u in $USERS; do
  new_case "$u"
  git init -q "$CASE/subsrc" && $GIT -C "$CASE/subsrc" commit -q --allow-empty -m sub-init
  git init -q "$CASE/upstream" && $GIT -C "$CASE/upstream" commit -q --allow-empty -m up-init &&
    $GIT -C "$CASE/upstream" submodule add -q "$CASE/subsrc" sub && $GIT -C "$CASE/upstream" commit -q -m "add sub"
  rm -rf "$W" && git clone -q "$CASE/upstream" "$W"  # a clone without its submodule: update --init is to come
  chown -R "$u" "$CASE"
  main=$(host "$u" git symbolic-ref --short HEAD)
  out=$(sbx "$u" --add-dirs-ro "$CASE/subsrc" -- sh -c '
G="git -c user.email=t@example.com -c user.name=t"
set -e
echo a >a.txt && git add a.txt && $G commit -q -m a
git branch feature && git checkout -q feature && echo b >b.txt && git add b.txt && $G commit -q -m b
git checkout -q "$1" && echo c >c.txt && git add c.txt && $G commit -q -m c
git checkout -q feature && $G rebase -q "$1"
echo stashed >>a.txt && git stash -q && git stash pop -q && git checkout -q -- a.txt
git worktree add -q wt -b wt-branch && (cd wt && echo w >w.txt && git add w.txt && $G commit -q -m in-worktree)
git -c protocol.file.allow=always submodule update -q --init
(cd sub && echo s >s.txt && git add s.txt && $G commit -q -m in-submodule)
echo done' sh "$main" 2>&1)
  expect_eq "$u: add, commit, branch, checkout, rebase, stash, worktree add, submodule update --init and commits in both work inside" "$out" done
  expect_eq "$u: ... the rebased branch is there on the host" "$(host "$u" git log --format=%s feature | tr '\n' ' ')" "b c a add sub up-init "
  expect_eq "$u: ... the linked worktree's commit too" "$(host "$u" git -C wt log -1 --format=%s 2>&1)" in-worktree
  expect_eq "$u: ... and the submodule's" "$(host "$u" git -C sub log -1 --format=%s 2>&1)" in-submodule
  expect_eq "$u: ... and every hook directory git made holds only its samples" \
    "$(find "$W/.git" -path '*/hooks/*' ! -name '*.sample' 2>/dev/null)" ""
done
finish
