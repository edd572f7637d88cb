#!/usr/bin/env bash
# tests/cli/test_repl_terminal.sh — `cordon repl` on a terminal (tests/lib/pty_drive.py types into a pty):
# Tab completes module fields, methods of values and the file name after :load; Ctrl-C stops a running chunk and clears a line
# at the prompt without ending the session; the history directory is made when missing, each line is
# in the file even when the session ends in os.exit, and the next session recalls it with Up.
set -u
CORDON=${CORDON:?CORDON must name the cordon binary}
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cordon-repl-pty.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_STATE_HOME=
mkdir -p "$HOME"
cd "$tmp" || exit 1
printf 'loaded_value = 99\n' >loadme.lua
pass=0 fail=0
drive() { # NAME STEPS-FILE WANT-STATUS
  local out status
  out=$(python3 "$here/../lib/pty_drive.py" "$2" "$CORDON" repl)
  status=$(printf '%s\n' "$out" | sed -n 's/^##status=//p')
  if [ "$status" = "$3" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); printf 'FAIL: %s (status %s, want %s)\n%s\n' "$1" "$status" "$3" "$out" >&2; fi
}

# Keys are typed once the prompt is up (libedit has the terminal then): typed ahead, a Ctrl-D or
# Ctrl-C meets the terminal's own line discipline instead.
cat >"$tmp/complete" <<'STEPS'
expect cordon> 
# without completion `cordon.sb` is nil and prints nil
send cordon.sb\t\r
expect quote_regex = function.*cordon> 
send p = cordon.profile.standard("read-only")\r
expect cordon> 
send =p:ki\t()\r
expect "managed".*cordon> 
send =cordon.path.norm\t("/a//b")\r
expect "/a/b".*cordon> 
send :load loadm\t\r
expect cordon> 
send =loaded_value\r
expect \n99\r\n.*cordon> 
send \x04
STEPS
drive "Tab completes fields and methods" "$tmp/complete" 0

cat >"$tmp/interrupt" <<'STEPS'
expect cordon> 
send while true do end\r
sleep 0.5
send \x03
expect error: interrupted.*cordon> 
send =40+2\r
expect \n42\r\n.*cordon> 
send abc
sleep 0.3
send \x03
sleep 0.3
send =1+2\r
expect \n3\r\n.*cordon> 
send os.exit(3)\r
STEPS
drive "Ctrl-C stops the chunk and the session goes on" "$tmp/interrupt" 3

file="$HOME/.local/state/cordon/repl_history"
if [ -f "$file" ] && grep -qx '=40+2' "$file" && grep -qx 'os.exit(3)' "$file" && ! grep -q abc "$file"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1)); echo "FAIL: history kept across os.exit in a directory made for it: $(cat "$file" 2>&1)" >&2
fi
[ "$(stat -c %a "$HOME/.local/state/cordon")" = 700 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: history directory mode" >&2; }

cat >"$tmp/recall" <<'STEPS'
expect cordon> 
send 6*7\r
expect \n42\r\n.*cordon> 
send \x1b[A\x1b[A\r
expect \n3\r\n.*cordon> 
send \x04
STEPS
printf '=3\n' >>"$file"
drive "the next session recalls the history" "$tmp/recall" 0

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
