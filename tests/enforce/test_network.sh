#!/usr/bin/env bash
# tests/enforce/test_network.sh — the network under `cordon run`: restricted means no TCP or UDP to a
# loopback server, no host unix socket standing in for a container runtime or an ssh agent; enabled lets
# TCP and UDP through; no abstract unix socket outside either way (Landlock ABI >= 6). Each denied case
# checks that the server saw nothing.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed for the loopback servers"
stage servers.py

# serve KIND ADDRESS LOG: starts a server, sets PORT
serve() {
  local fifo="$ROOT/fifo.$RANDOM"
  mkfifo "$fifo"
  python3 "$BIN/servers.py" "$1" "$2" "$3" >"$fifo" &
  BG_PIDS="$BG_PIDS $!"
  read -r _ PORT <"$fifo"
  rm -f "$fifo"
}

client() {  # a python3 client run inside the sandbox: client KIND ADDRESS
  printf 'import socket,sys\nk,a=sys.argv[1],sys.argv[2]\n'
  printf 'if k=="tcp":\n s=socket.create_connection(("127.0.0.1",int(a)),timeout=3)\n'
  printf 'elif k=="udp":\n s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.sendto(b"x",("127.0.0.1",int(a)))\n'
  printf 'elif k=="unix":\n s=socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect(a)\n'
  printf 'else:\n s=socket.socket(socket.AF_UNIX); s.settimeout(3); s.connect("\\0"+a)\n'
}

for u in $USERS; do
  new_case "$u"
  client >"$W/client.py"
  chmod 644 "$W/client.py"
  hits() { [ -f "$1" ] && wc -l <"$1" || echo 0; }

  # expect_net "description" allowed|denied LOG KIND ADDRESS [cordon run options]
  expect_net() {
    local d=$1 want=$2 log=$3 kind=$4 addr=$5
    shift 5
    local before after rc
    before=$(hits "$log")
    sbx "$u" "$@" -- sh -c 'python3 "$1" "$2" "$3" || exit 42' sh "$W/client.py" "$kind" "$addr" >/dev/null 2>&1
    rc=$?
    sleep 0.2
    after=$(hits "$log")
    if [ "$want" = denied ]; then
      if [ "$rc" -eq 42 ] && [ "$before" = "$after" ]; then ok "$u: $d"; else bad "$u: $d (exit $rc, server hits $before -> $after)"; fi
    else
      if [ "$rc" -eq 0 ] && [ "$after" -gt "$before" ]; then ok "$u: $d"; else bad "$u: $d (exit $rc, server hits $before -> $after)"; fi
    fi
  }

  serve tcp - "$CASE/tcp.log"
  TCP=$PORT
  serve udp - "$CASE/udp.log"
  UDP=$PORT
  expect_net "TCP connect to a loopback server is denied when the network is restricted" denied "$CASE/tcp.log" tcp "$TCP" --profile workspace-write --network restricted
  expect_net "UDP to a loopback server is denied when the network is restricted" denied "$CASE/udp.log" udp "$UDP" --profile workspace-write --network restricted
  expect_net "TCP connect works when the network is enabled" allowed "$CASE/tcp.log" tcp "$TCP" --profile workspace-write --network enabled
  expect_net "UDP works when the network is enabled" allowed "$CASE/udp.log" udp "$UDP" --profile workspace-write --network enabled

  # A rootless container runtime's socket, which Landlock cannot guard (connect is not a file access).
  uid=$(id -u "$u")
  rundir="/run/user/$uid"
  made_rundir=""
  if [ ! -d "$rundir" ] && [ "$(id -u)" -eq 0 ]; then mkdir -p "$rundir" && chown "$u" "$rundir" && made_rundir=1; fi
  if [ -d "$rundir" ] && [ ! -e "$rundir/docker.sock" ]; then
    serve unix "$rundir/docker.sock" "$CASE/docker.log"
    expect_net "connect to a host unix socket standing in for a container runtime is denied" denied "$CASE/docker.log" unix "$rundir/docker.sock" --profile workspace-write --network enabled
    # control: the same client reaches it from outside, so the denial above is the mask's doing
    as "$u" "$W" "$H" python3 "$W/client.py" unix "$rundir/docker.sock" && sleep 0.2
    check "$u: the stand-in socket answers outside the sandbox" test "$(hits "$CASE/docker.log")" -gt 0
    rm -f "$rundir/docker.sock"
  else
    bad "$u: cannot place a stand-in socket at $rundir/docker.sock"
  fi
  [ -n "$made_rundir" ] && rm -rf "$rundir"

  if [ "$LL_ABI" -ge 6 ]; then
    serve abstract "cordon-test-$$-$u" "$CASE/abstract.log"
    expect_net "connect to an abstract unix socket outside is denied when the network is restricted" denied "$CASE/abstract.log" abstract "cordon-test-$$-$u" --profile workspace-write --network restricted
    # an abstract socket is a host server like any other (X11's, D-Bus's): no policy can name one, so the
    # network being enabled opens none (docs/linux-sandbox.md, threat model class 1)
    expect_net "connect to an abstract unix socket outside is denied when the network is enabled too" denied "$CASE/abstract.log" abstract "cordon-test-$$-$u" --profile workspace-write --network enabled
    as "$u" "$W" "$H" python3 "$W/client.py" abstract "cordon-test-$$-$u" && sleep 0.2
    check "$u: the abstract socket answers outside the sandbox" test "$(hits "$CASE/abstract.log")" -gt 0
  else
    echo "note: Landlock ABI $LL_ABI < 6: abstract unix socket scoping not tested"
  fi
done
finish
