#!/usr/bin/env bash
# tests/enforce/test_escape_home.sh — issue 9, class 7: a workdir that is HOME. HOME's dot-entries are
# read-only unless a fragment grants one by name, and cordon's own config and state are never writable.
# With `cordon run --workdir ~` (default tree, workspace-write, as root and as an unprivileged user) every
# start-up file a later program of the user reads (editors, tmux, the X session, PAM, systemd's
# environment.d, direnv's allow list, git's global config, cordon's own config, trust list and session
# database) is refused, written, replaced, removed, existing or missing, and unchanged on the host; a new dot-entry cannot be made; ~/projects
# stays writable. Then the host's own `bash -i`, `bash -l` and `tmux -f ~/.tmux.conf` run nothing planted
# (the same plant made on the host does run: the control), and the next run's policy is unchanged.
. "$(dirname "$0")/lib.sh"

# Existing start-up files (each holds something of the user's) and missing ones, relative to HOME.
EXISTING=".gitconfig .vimrc .config/nvim/init.vim .tmux.conf .xprofile .pam_environment .profile .bash_profile
.config/environment.d/10-path.conf .config/cordon/config.yaml .local/state/cordon/sessions.db"
MISSING=".config/environment.d/x.conf .local/share/direnv/allow/0000 .config/cordon/trusted-workdirs
.config/cordon/config.d/evil.yaml .local/state/cordon/planted .zshenv .newdot .newdir/file"

# plant MARKER: what an attacker writes into HOME's start-up files (run from HOME, inside or, for the
# control, on the host)
PLANT='M=$1
exec 2>/dev/null
for f in .bashrc .profile .bash_profile; do echo "touch \"$M\"" >>"$f"; done
echo "run-shell \"touch $M\"" >>.tmux.conf
for f in '"$EXISTING"' '"$MISSING"'; do mkdir -p "$(dirname "$f")"; echo "evil" >>"$f"; done
rm -f .gitconfig; mv .vimrc .vimrc.old; echo evil >.vimrc.new && mv .vimrc.new .vimrc
printf "profile: danger-full-access\n" >.config/cordon/config.yaml
echo "$HOME" >.config/cordon/trusted-workdirs'

# the user's own programs afterwards, on the host
verdict() {
  local u=$1
  as "$u" "$H" "$H" bash -ic true >/dev/null 2>&1 </dev/null
  as "$u" "$H" "$H" bash -lc true >/dev/null 2>&1 </dev/null
  as "$u" "$H" "$H" tmux -L "cordon-h$$" -f "$H/.tmux.conf" new -d 'sleep 0.5' >/dev/null 2>&1
  sleep 0.5
  as "$u" "$H" "$H" tmux -L "cordon-h$$" kill-server >/dev/null 2>&1
}

prepare_home() {
  local f
  for f in $EXISTING; do mkdir -p "$H/$(dirname "$f")" && echo "# the user's own $f" >"$H/$f"; done
  mkdir -p "$H/.local/share/direnv/allow" "$H/projects"
  chown -R "$1" "$H"
}

for u in $USERS; do
  new_case "$u"
  prepare_home "$u"
  declare -A before=()
  for f in .bashrc $EXISTING $MISSING; do before[$f]=$(state "$H/$f"); done
  profile_before=$(as "$u" "$H" "$H" "$CORDON" explain --platform linux --workdir "$H" 2>&1 | grep 'permission profile')

  as "$u" "$H" "$H" "$CORDON" run --workdir "$H" -- sh -c "$PLANT" sh "$O/marker"
  for f in .bashrc $EXISTING $MISSING; do
    expect_eq "$u: with HOME as the workdir, ~/$f is refused and unchanged" "$(state "$H/$f")" "${before[$f]}"
  done
  unset before
  check "$u: ... and no new dot-directory either (~/.newdir)" test ! -e "$H/.newdir"
  out=$(as "$u" "$H" "$H" "$CORDON" run --workdir "$H" -- sh -c 'mkdir -p projects/x && echo mine >projects/x/file && cat projects/x/file' 2>&1)
  check "$u: ... while ~/projects/x/file is writable (got: $out)" test "$out" = mine -a "$(cat "$H/projects/x/file" 2>/dev/null)" = mine
  verdict "$u"
  check "$u: the host's own bash -i, bash -l and tmux -f ~/.tmux.conf run nothing planted inside" test ! -e "$O/marker"
  expect_eq "$u: the next run's policy is the same (cordon's config and trust list untouched)" \
    "$(as "$u" "$H" "$H" "$CORDON" explain --platform linux --workdir "$H" 2>&1 | grep 'permission profile')" "$profile_before"
done

# control: the same plant made on the host is run by the same programs
u=${USERS%% *}
new_case "$u"
prepare_home "$u"
as "$u" "$H" "$H" sh -c "$PLANT" sh "$O/marker"
verdict "$u"
check "control: planted on the host, the user's bash and tmux run it" test -e "$O/marker"
finish
