#!/usr/bin/env bash
# tests/enforce/test_escape_metadata.sh — issue 9, class 8: Landlock does not cover chmod, utime, setxattr
# or chown, so outside the writable roots only a read-only mount stops them. As root and as an
# unprivileged user, inside `cordon run` (default tree, workspace-write): chmod, touch -d, setfattr and
# (as root) chown on files, directories and symlinks the run can see but not write (a start-up file in
# HOME, a --add-dirs-ro tree, the directories on the way to the workdir) leave each one's mode, mtime,
# ctime, xattrs and owner unchanged on the host. chmod of a
# protected file inside the workdir is refused too (the gate decides chmod there).
. "$(dirname "$0")/lib.sh"

HAVE_XATTR=""
command -v setfattr >/dev/null && command -v getfattr >/dev/null && HAVE_XATTR=1
[ -n "$HAVE_XATTR" ] || echo "note: setfattr/getfattr missing (the attr package): xattr cases not tested"

# meta PATH: everything about PATH's metadata the attacks would change, as the host sees it
meta() {
  stat -c '%a %U:%G %Y %Z' "$1"
  [ -n "$HAVE_XATTR" ] && getfattr -d -m - --absolute-names "$1" 2>/dev/null | grep -v '^#'
}

for u in $USERS; do
  new_case "$u"
  mkdir -p "$O/tree/sub"
  echo tool >"$O/tree/tool.sh"
  chown -R "$u" "$O"
  ln -s tool.sh "$O/tree/tool-link"
  chown -h "$u" "$O/tree/tool-link"
  targets=("$H/.bashrc" "$O/tree/tool.sh" "$O/tree/sub" "$O/tree" "$CASE" "$O/tree/tool-link")
  declare -A before=()
  for t in "${targets[@]}" "$W/.git/config"; do before[$t]=$(meta "$t"); done
  sleep 1.1  # a change made now would show in the second-resolution mtime and ctime

  for t in "${targets[@]}"; do
    attacks=("chmod 777 '$t'" "chmod -h 777 '$t'" "touch -h -d 2001-01-01 '$t'" "touch -h -c '$t'")
    [ -n "$HAVE_XATTR" ] && attacks+=("setfattr -h -n user.cordon -v evil '$t'")
    [ "$u" = root ] && attacks+=("chown -h nobody '$t'" "chown -h '$u:$(id -gn "$u")' '$t'")
    for a in "${attacks[@]}"; do sbx "$u" --add-dirs-ro "$O/tree" -- sh -c "$a" >/dev/null 2>&1; done
    expect_eq "$u: chmod, touch, setfattr$([ "$u" = root ] && echo ", chown") inside leave $t's mode, owner, mtime, ctime and xattrs unchanged" \
      "$(meta "$t")" "${before[$t]}"
  done
  sbx "$u" -- sh -c "chmod 777 .git/config || exit 42" >/dev/null 2>&1
  check "$u: chmod of a protected file inside the workdir (.git/config) fails inside" test $? = 42
  expect_eq "$u: ... and its mode is unchanged" "$(meta "$W/.git/config")" "${before[$W/.git/config]}"
  unset before

  # control: the same commands change the same metadata where the run may write (its workdir)
  echo x >"$W/own" && chown "$u" "$W/own"
  m0=$(meta "$W/own")
  sbx "$u" -- sh -c "chmod 600 own && touch -d 2001-01-01 own" >/dev/null 2>&1
  check "control: inside the workdir chmod and touch -d do change the file" test "$(meta "$W/own")" != "$m0"
done
finish
