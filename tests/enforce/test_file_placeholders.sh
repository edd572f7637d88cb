#!/usr/bin/env bash
# tests/enforce/test_file_placeholders.sh — a missing protected file is masked over an empty read-only
# file, so the tools that read it work (git dies on a directory at ~/.gitconfig), as root and as an
# unprivileged user; inside a git work tree the placeholder stays a directory (git add -A skips an empty
# one); nothing is left behind, even by back-to-back runs that adopt each other's placeholders.
. "$(dirname "$0")/lib.sh"

# home USER CMD…: CMD inside cordon with HOME as the workdir (cordon run --workdir ~), from HOME.
home() {
  local user=$1
  shift
  as "$user" "$H" "$H" "$CORDON" run --workdir "$H" -- "$@"
}

# trace USER CMD…: like home, with the run cache's verdict (hit, miss, off) in CACHE.
trace() {
  local user=$1 err
  shift
  err=$(as "$user" "$H" "$H" env CORDON_TRACE=1 "$CORDON" run --workdir "$H" -- "$@" 2>&1 >/dev/null)
  CACHE=$(printf '%s\n' "$err" | sed -nE 's/^cordon: run-cache: (hit|miss|off).*/\1/p' | head -1)
}

for u in $USERS; do
  new_case "$u"
  git init -q "$H/proj" && chown -R "$u" "$H/proj"  # a repository of its own: HOME is no work tree
  check "$u: no ~/.gitconfig before" test ! -e "$H/.gitconfig"

  # --- HOME writable and no git work tree around it: a file placeholder ------------------------------
  check "$u: git config --global --list works without a ~/.gitconfig" home "$u" git config --global --list
  check "$u: git status in a repository under HOME works" home "$u" git -C proj status --short
  check "$u: ~/.gitconfig reads as an empty file" home "$u" sh -c '[ -f .gitconfig ] && [ ! -s .gitconfig ]'
  check "$u: ~/.gitconfig cannot be written" home "$u" sh -c '! git config --global core.hooksPath /evil'
  check "$u: ... nor replaced" home "$u" sh -c '! { rm -f .gitconfig || mv .gitconfig x || echo evil >.gitconfig; }'
  check "$u: the placeholder is gone afterwards" eventually_absent "$H/.gitconfig"
  check "$u: ... and ~/.inputrc too" eventually_absent "$H/.inputrc"

  # Back-to-back runs: the second sees the placeholders the first one's cleaner still holds as missing
  # (a run-cache hit on the entry the first one made), adopts them, and its own cleaner removes them.
  trace "$u" true
  trace "$u" true
  check "$u: a run while the last one's placeholders linger is a run-cache hit (got '$CACHE')" test "$CACHE" = hit
  check "$u: back-to-back runs leave no ~/.gitconfig behind" eventually_absent "$H/.gitconfig"
  check "$u: ... nor ~/.zshrc" eventually_absent "$H/.zshrc"

  # --- inside a git work tree: directories, which git never lists (an empty file would be untracked,
  # and git add -A would commit it) ---------------------------------------------------------------------
  untracked='[ -z "$(git status --porcelain --untracked-files=all -- "$@")" ]'
  check "$u: in a repository workdir the placeholders stay directories git does not list" \
    sbx "$u" -- sh -c "[ -d .envrc ] && [ -d .cordon.yaml ] && $untracked" sh .envrc .cordon.yaml
  check "$u: nothing is left in the repository afterwards" eventually_absent "$W/.envrc"
  git init -q "$H" && chown -R "$u" "$H/.git"  # a home kept in git (dotfiles)
  # git itself cannot read a directory ~/.gitconfig: the listing uses no global config
  check "$u: with HOME a git work tree, ~/.gitconfig is a directory placeholder git does not list" \
    home "$u" env GIT_CONFIG_GLOBAL=/dev/null sh -c "[ -d .gitconfig ] && $untracked" sh .gitconfig
  check "$u: ... gone afterwards too" eventually_absent "$H/.gitconfig"
done
finish
