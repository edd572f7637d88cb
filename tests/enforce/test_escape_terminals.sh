#!/usr/bin/env bash
# tests/enforce/test_escape_terminals.sh — issue 9, class 4: another terminal of the same user is a way
# to read its keystrokes and type or write into it. cordon runs on a terminal of its own (pty_run.py,
# as a user runs it) while a second one of the same user is open beside it, with keystrokes waiting
# unread. As root and as an unprivileged user, inside: that terminal's /dev/pts/N is not there, writing
# and reading it fail, /dev/pts lists only the run's own; on the HOST afterwards nothing arrived on the
# victim's screen and its keystrokes are still waiting. The same script without cordon does reach it
# (the control). The run's own terminal works: stdin is a tty, `tty` names it, it can be read, /dev/tty
# writes to it; a pty made inside works (script, python's pty.openpty).
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed to run cordon on a terminal"
stage pty_run.py

ATTACK='V=$1
echo "pts: $(ls /dev/pts | tr "\n" " ")"
test -e "$V" && echo victim-visible
echo victim-screen-written >"$V" 2>/dev/null && echo victim-written
timeout 1 cat "$V" 2>/dev/null
exit 0'
OWN='echo "pts: $(ls /dev/pts | tr "\n" " ")"
[ -t 0 ] && echo stdin-is-a-tty
if t=$(tty); then echo "tty-names: $(test -c "$t" && echo own-terminal)"; else echo "tty-names: unnamed"; fi
read -r line && echo "read: $line"
echo devtty-works >/dev/tty
script -qc "echo inside-script" /dev/null </dev/null
python3 -c "import os; m, s = os.openpty(); os.write(s, b\"pty-ok\"); print(\"openpty:\", os.read(m, 6).decode(), *sorted(os.listdir(\"/dev/pts\")))"'

field() { sed -n "s/^##$1=//p" <<<"$2"; }

for u in $USERS; do
  new_case "$u"
  out=$(host "$u" python3 "$BIN/pty_run.py" "" sh -c "$ATTACK" sh "{victim}")
  check "$u: control: without cordon the script reaches the other terminal ($(field victim-out "$out"))" \
    grep -q victim-screen-written <<<"$(field victim-out "$out")"

  out=$(host "$u" python3 "$BIN/pty_run.py" "" "$CORDON" run --workdir "$W" -- sh -c "$ATTACK" sh "{victim}")
  expect_eq "$u: inside, /dev/pts lists only the run's own (none made yet)" "$(grep '^pts:' <<<"$out")" "pts: ptmx "
  check "$u: the host's other terminal is not there inside" test -z "$(grep -e victim-visible -e victim-written <<<"$out")"
  check "$u: nothing read its keystrokes inside" test -z "$(grep victim-keystrokes <<<"${out%%##victim-out*}")"
  expect_eq "$u: on the host, nothing arrived on the other terminal's screen" "$(field victim-out "$out")" "''"
  expect_eq "$u: ... and its keystrokes are still waiting there, unread" "$(field victim-in "$out")" "'victim-keystrokes\\n'"
  expect_eq "$u: ... and the run ended normally" "$(field status "$out")" 0

  out=$(host "$u" python3 "$BIN/pty_run.py" $'answer\n' "$CORDON" run --workdir "$W" -- sh -c "$OWN")
  # ttyname() has no name for the caller's terminal inside (its /dev/pts entry belongs to the host's
  # devpts, which the view leaves out): the documented residual of docs/linux-sandbox.md, class 4
  for want in "stdin-is-a-tty" "tty-names: unnamed" "read: answer" "devtty-works" "inside-script"; do
    check "$u: the run's own terminal: '$want'" grep -qx -- "$want" <<<"$out"
  done
  expect_eq "$u: a pty made inside works and is the only one its devpts lists" "$(grep '^openpty:' <<<"$out")" "openpty: pty-ok 0 ptmx"
done
finish
