#!/usr/bin/env bash
# tests/enforce/test_escape_command_dirs.sh — issue 9, classes 6 and 7: directories the host's shells run
# commands from. A PATH entry inside the workdir (a project's tools/bin the user put on PATH), and ~/bin
# when the workdir is HOME (Debian's ~/.profile puts it first on PATH at login, even if it is made
# later): a `git` planted there ran at the user's next `git` on the host. Now the run cannot create or
# change anything there (as root and as an unprivileged user), the host's own `git` runs nothing
# planted, explain lists the directories, and an activated virtualenv's bin stays writable (pip
# installs the project's tools there). The control plants the same on the host and sees it run.
. "$(dirname "$0")/lib.sh"

PLANT='d=$1 M=$2; mkdir -p "$d" 2>/dev/null; printf "#!/bin/sh\ntouch %s\nexec /usr/bin/git \"\$@\"\n" "$M" >"$d/git" 2>/dev/null &&
  chmod +x "$d/git" && echo planted'

for u in $USERS; do
  # a PATH entry inside the workdir
  new_case "$u"
  mkdir -p "$W/tools/bin" && echo '#!/bin/sh' >"$W/tools/bin/existing" && chmod +x "$W/tools/bin/existing"
  chown -R "$u" "$W"
  P="$W/tools/bin:/usr/local/bin:/usr/bin:/bin"
  out=$(as "$u" "$W" "$H" env PATH="$P" "$CORDON" run --workdir "$W" -- sh -c "$PLANT
    echo changed >>'$W/tools/bin/existing' 2>/dev/null && echo changed-existing; echo fine >'$W/still-writable'" \
    sh "$W/tools/bin" "$O/marker" 2>&1)
  check "$u: nothing could be planted in a PATH directory inside the workdir" test -z "$(grep -e '^planted' -e changed-existing <<<"$out")"
  expect_eq "$u: the rest of the workdir stays writable" "$(cat "$W/still-writable" 2>/dev/null)" fine
  as "$u" "$W" "$H" env PATH="$P" git --version >/dev/null 2>&1
  check "$u: the host's own git (PATH first on tools/bin) runs nothing planted" test ! -e "$O/marker"
  check "$u: explain lists the PATH directory as kept read-only" \
    grep -qF "$W/tools/bin (on PATH)" <<<"$(as "$u" "$W" "$H" env PATH="$P" "$CORDON" explain --workdir "$W" 2>&1)"

  # an activated virtualenv's bin is the project's own: pip installs there
  mkdir -p "$W/.venv/bin" && chown -R "$u" "$W/.venv"
  out=$(as "$u" "$W" "$H" env PATH="$W/.venv/bin:/usr/bin:/bin" VIRTUAL_ENV="$W/.venv" "$CORDON" run --workdir "$W" -- \
    sh -c "echo '#!/bin/sh' >'$W/.venv/bin/tool' && echo installed" 2>&1)
  expect_eq "$u: an activated virtualenv's bin stays writable" "$out" installed

  # ~/bin when the workdir is HOME
  new_case "$u"
  cp /etc/skel/.profile "$H/.profile" 2>/dev/null || printf 'if [ -d "$HOME/bin" ]; then PATH="$HOME/bin:$PATH"; fi\n' >"$H/.profile"
  chown -R "$u" "$H"
  out=$(as "$u" "$H" "$H" "$CORDON" run --workdir "$H" -- sh -c "$PLANT" sh "$H/bin" "$O/marker" 2>&1)
  check "$u: ~/bin cannot be made when the workdir is HOME" test ! -e "$H/bin/git"
  as "$u" "$H" "$H" bash -lc 'git --version' >/dev/null 2>&1 </dev/null
  check "$u: the host's login shell runs nothing planted in ~/bin" test ! -e "$O/marker"
  mkdir -p "$H/bin" && chown "$u" "$H/bin"
  out=$(as "$u" "$H" "$H" "$CORDON" run --workdir "$H" -- sh -c "$PLANT" sh "$H/bin" "$O/marker" 2>&1)
  check "$u: an existing ~/bin stays read-only too" test ! -e "$H/bin/git"

  # control: the same plant made on the host does run at the user's next login shell's git
  host "$u" sh -c "$PLANT" sh "$H/bin" "$O/marker" >/dev/null
  as "$u" "$H" "$H" bash -lc 'git --version' >/dev/null 2>&1 </dev/null
  check "$u: control: a git planted in ~/bin on the host runs at the next login shell's git" test -e "$O/marker"
done
finish
