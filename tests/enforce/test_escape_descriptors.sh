#!/usr/bin/env bash
# tests/enforce/test_escape_descriptors.sh — issue 9, class 9, the cases test_hardening.sh does not cover
# (it covers a secret file passed on a descriptor, and --pass-fd): a directory descriptor the caller
# left open is a way to write beneath that directory, and a socket descriptor is a connection to a host
# server. As root and as an unprivileged user, each attack runs inside `cordon run` and the outcome is
# checked on the host (nothing planted, the server ran nothing); each is first shown to work without
# cordon (the control).
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed to pass descriptors"
stage servers.py

# with_fds DIR SOCKET CMD…: runs CMD with fd 7 open on the directory DIR and fd 8 connected to the unix
# socket SOCKET (as an editor or agent wrapper might leave them)
WITH_FDS='import os, socket, sys
d = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[2])
os.dup2(d, 7); os.dup2(s.fileno(), 8)
os.execvp(sys.argv[3], sys.argv[3:])'
# what the command does with them: writes beneath fd 7, sends a command down fd 8
ATTACK='M=$1
{ echo evil >/proc/self/fd/7/planted-by-path; } 2>/dev/null
python3 -c "import os
try:
    os.close(os.open(\"planted-by-dirfd\", os.O_CREAT | os.O_WRONLY, dir_fd=7))
except OSError:
    pass
import socket
try:
    socket.socket(fileno=8).sendall(b\"touch $M\\n\")
except OSError:
    pass" 2>/dev/null
sleep 0.3
exit 0'

serve() {  # serve USER ADDRESS LOG: the exec stand-in of servers.py, run by USER on the host
  local fifo="$ROOT/fifo.$RANDOM"
  mkfifo -m 666 "$fifo"
  (as_exec "$1" "$CASE" "$H" python3 "$BIN/servers.py" exec "$2" "$3" >"$fifo") &
  BG_PIDS="$BG_PIDS $!"
  read -r _ _ <"$fifo"
  rm -f "$fifo"
}

for u in $USERS; do
  for mode in control sandbox; do
    new_case "$u"
    serve "$u" "$CASE/server.sock" "$CASE/server.log"
    if [ "$mode" = control ]; then
      host "$u" python3 -c "$WITH_FDS" "$O" "$CASE/server.sock" sh -c "$ATTACK" sh "$CASE/marker"
      check "control: $u: without cordon a directory descriptor writes beneath it" test -e "$O/planted-by-path" -a -e "$O/planted-by-dirfd"
      check "control: $u: ... and a socket descriptor makes the server run a command" test -e "$CASE/marker"
    else
      host "$u" python3 -c "$WITH_FDS" "$O" "$CASE/server.sock" "$CORDON" run --workdir "$W" -- sh -c "$ATTACK" sh "$CASE/marker"
      expect_eq "$u: a directory descriptor left open by the caller writes nothing beneath it" "$(ls -A "$O")" file
      check "$u: a socket descriptor left open by the caller reaches no server (it ran nothing)" test ! -e "$CASE/marker"
    fi
  done
done
finish
