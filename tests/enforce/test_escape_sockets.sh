#!/usr/bin/env bash
# tests/enforce/test_escape_sockets.sh — issue 9, class 1: host servers reached over unix sockets run
# what they are sent outside the sandbox. Default tree, workspace-write, as root and as an unprivileged
# user: the user's own tmux server, an ssh-agent under the host's /tmp, stand-ins for the D-Bus session bus
# and `systemd --user` under /run/user/UID, a dev server's socket in the workdir and one in HOME, an
# abstract socket and a datagram one. Each attack runs inside `cordon run`; the outcome is checked on the
# host (the marker the server would create is absent, the agent still holds its key, the server saw
# nothing), and each server is first shown to do exactly that for a client outside (the control). The
# legitimate uses still work: a tmux of the run's own, servers bound inside, the agent with --enable=ssh.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed for the stand-in servers"
stage servers.py
# CLIENT ADDRESS LINE: connects (a path, or @name for an abstract socket), sends LINE and waits for the
# server to finish with it; exit 0 when it got through
CLIENT='import socket, sys
a, line = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect("\0" + a[1:] if a.startswith("@") else a)
s.sendall(line.encode() + b"\n")
s.recv(1)'
# DGRAM PATH: sends one datagram to PATH; exit 0 when it was sent
DGRAM='import socket, sys
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"x", sys.argv[1])'

# serve USER KIND ADDRESS LOG: a server of servers.py run by USER on the host, ready when this returns
serve() {
  local user=$1 fifo="$ROOT/fifo.$RANDOM"
  mkfifo -m 666 "$fifo"
  (as_exec "$user" "$CASE" "$H" python3 "$BIN/servers.py" "$2" "$3" "$4" >"$fifo") &
  BG_PIDS="$BG_PIDS $!"
  read -r _ _ <"$fifo"
  rm -f "$fifo"
}
hits() { [ -f "$1" ] && wc -l <"$1" || echo 0; }

for u in $USERS; do
  new_case "$u"
  uid=$(id -u "$u")
  M="$O/marker"  # outside every writable root: only a process outside the sandbox can create it
  mkdir -p "$CASE/logs" && chown "$u" "$CASE/logs"

  # --- the user's tmux server on the host ------------------------------------------------------------
  tsock="cordon-t$$"
  host "$u" tmux -L "$tsock" new -d -s host 'sleep 600'
  at_exit "as '$u' / '$H' tmux -L '$tsock' kill-server"
  host "$u" tmux -L "$tsock" run-shell "touch '$M.tmux-control'"
  check "$u: control: the host's tmux server runs what a client outside sends it" wait_for "$M.tmux-control" 30
  sbx "$u" -- tmux -L "$tsock" run-shell "touch '$M.tmux'" 2>/dev/null
  sbx "$u" -- tmux -S "/tmp/tmux-$uid/$tsock" run-shell "touch '$M.tmux'" 2>/dev/null
  sleep 0.3
  check "$u: tmux -L <the host's server> run-shell inside runs nothing outside" test ! -e "$M.tmux"
  out=$(sbx "$u" --shared-tmp -- sh -c "test -S '/tmp/tmux-$uid/$tsock' && echo visible; tmux -L '$tsock' run-shell \"touch '$M.tmux-shared'\"" 2>/dev/null)
  sleep 0.3
  check "$u: with --shared-tmp the host's tmux socket is visible (got: $out) but connecting to it runs nothing" \
    test "$out" = visible -a ! -e "$M.tmux-shared"
  out=$(sbx "$u" -- sh -c 'tmux new -d -s own "sleep 60" && tmux ls -F "#{session_name}" && tmux kill-server' 2>&1)
  expect_eq "$u: a tmux server of the run's own works inside" "$out" own
  check "$u: the host's tmux server is still the only one it has" test "$(host "$u" tmux -L "$tsock" ls -F '#{session_name}')" = host

  # --- an ssh-agent under the host's /tmp ----------------------------------------------------------------
  if command -v ssh-agent >/dev/null && command -v ssh-keygen >/dev/null; then
    adir="/tmp/cordon-ssh-$$-$u"
    mkdir -m 700 "$adir" && chown "$u" "$adir"
    at_exit "rm -rf '$adir'"
    agent="$adir/agent.sock"
    apid=$(host "$u" ssh-agent -a "$agent" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
    at_exit "kill '$apid'"
    host "$u" ssh-keygen -q -t ed25519 -N '' -C cordon-test -f "$CASE/key"
    host "$u" env SSH_AUTH_SOCK="$agent" ssh-add -q "$CASE/key" 2>/dev/null
    keys=$(host "$u" env SSH_AUTH_SOCK="$agent" ssh-add -l)
    check "$u: control: the agent holds the test key ($keys)" grep -q cordon-test <<<"$keys"
    out=$(as "$u" "$W" "$H" env SSH_AUTH_SOCK="$agent" "$CORDON" run --workdir "$W" --env-pass SSH_AUTH_SOCK -- \
      sh -c 'test -e "$SSH_AUTH_SOCK" && echo visible; ssh-add -l; ssh-add -D' 2>/dev/null)
    check "$u: the agent is not reachable inside without --enable=ssh (got: $(echo $out))" test -z "$out"
    expect_eq "$u: ... and still holds its key on the host (ssh-add -D inside deleted nothing)" \
      "$(host "$u" env SSH_AUTH_SOCK="$agent" ssh-add -l)" "$keys"
    out=$(as "$u" "$W" "$H" env SSH_AUTH_SOCK="$agent" "$CORDON" run --workdir "$W" --enable=ssh --env-pass SSH_AUTH_SOCK -- \
      ssh-add -l 2>&1)
    expect_eq "$u: with --enable=ssh the agent \$SSH_AUTH_SOCK names works (ssh-add -l)" "$out" "$keys"
  else
    bad "$u: ssh-agent and ssh-keygen are needed (openssh-client)"
  fi

  # --- servers that run what they are sent: D-Bus, systemd --user, a dev server, an abstract socket ------
  rundir="/run/user/$uid"
  if [ ! -d "$rundir" ] && [ "$(id -u)" -eq 0 ]; then
    mkdir -p "$rundir" && chown "$u" "$rundir" && chmod 700 "$rundir" && at_exit "rm -rf '$rundir'"
  fi
  if [ ! -d "$rundir/systemd" ] && mkdir "$rundir/systemd" 2>/dev/null; then
    chown "$u" "$rundir/systemd" && at_exit "rmdir '$rundir/systemd'"
  fi
  n=0
  for addr in "$rundir/bus" "$rundir/systemd/private" "$W/.devserver.sock" "$H/.standin.sock" "@cordon-t$$-$u"; do
    n=$((n + 1))
    case $addr in /run/*) [ -w "$(dirname "$addr")" ] || [ "$(id -u)" -eq 0 ] || { bad "$u: cannot place $addr"; continue; } ;; esac
    [ -e "$addr" ] && { echo "note: $addr is a real server of this host's: not used as a stand-in"; continue; }
    log="$CASE/logs/exec.$n"
    serve "$u" exec "$addr" "$log"
    case $addr in @*) ;; *) at_exit "rm -f '$addr'" ;; esac
    host "$u" python3 -c "$CLIENT" "$addr" "touch '$M.ctl.$n'"
    check "$u: control: the stand-in at $addr runs what a client outside sends it" test -e "$M.ctl.$n"
    sbx "$u" -- python3 -c "$CLIENT" "$addr" "touch '$M.exec.$n'" 2>/dev/null
    sleep 0.2
    check "$u: connecting to the stand-in at $addr from inside runs nothing outside (server saw $(hits "$log") connections, 1 expected)" \
      test ! -e "$M.exec.$n" -a "$(hits "$log")" = 1
  done

  # --- what the run sees of /run ----------------------------------------------------------------------
  check "$u: (the host has sockets under $rundir for the next check to miss)" test -n "$(find "$rundir" -type s 2>/dev/null)"
  out=$(sbx "$u" -- sh -c "find /run /var/run '$rundir' -type s 2>/dev/null")
  expect_eq "$u: /run, /var/run and /run/user/$uid show no host socket" "$out" ""

  # --- datagram unix sockets: a sendto can name any socket, so none can be made ------------------------
  dlog="$CASE/logs/dgram"
  serve "$u" dgram "$W/.log.sock" "$dlog"
  host "$u" python3 -c "$DGRAM" "$W/.log.sock"
  sleep 0.2
  check "$u: control: the datagram stand-in receives from outside" test "$(hits "$dlog")" = 1
  sbx "$u" -- python3 -c "$DGRAM" "$W/.log.sock" 2>/dev/null
  rc=$?
  sleep 0.2
  check "$u: a datagram to a host socket in the workdir is refused (exit $rc) and never arrives" test "$rc" -ne 0 -a "$(hits "$dlog")" = 1
  out=$(sbx "$u" -- python3 -c 'import socket
for t in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
    try:
        socket.socketpair(socket.AF_UNIX, t); print("made")
    except OSError as e:
        print("refused")' 2>&1)
  expect_eq "$u: a datagram socketpair is refused, a stream one is made" "$(echo $out)" "refused made"

  # --- servers bound inside the run are the run's to use ------------------------------------------------
  for dir in /tmp "$W"; do
    out=$(sbx "$u" -- python3 -c 'import os, socket, sys
p = os.path.join(sys.argv[1], "own-%d.sock" % os.getpid())
s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect(p)
a, _ = s.accept(); c.sendall(b"ok"); print(a.recv(2).decode()); os.unlink(p)' "$dir" 2>&1)
    expect_eq "$u: a server bound inside the run ($dir) is connectable" "$out" ok
  done
done
finish
