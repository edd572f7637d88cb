#!/usr/bin/env bash
# tests/enforce/test_hardening.sh — what every process of a run is refused, and the limits a run gets
# (docs/linux-sandbox.md, threat model classes 3, 5, 9 and 10; seccomp.h, procsetup.h, limits.h):
# no new user namespace (clone3 answered ENOSYS, threads still work), no keyrings, no descriptor the
# caller did not pass, no datagram unix sockets, no io_uring, no nested seccomp listener once the gate
# filter is there, and a fork bomb, a memory hog and a CPU hog that stop at their limits while the host
# stays responsive. Each probe is first shown to work outside (hardening_probe.c), and each refusal is
# checked by its outcome on the host: a marker absent, a secret not printed, a datagram not received.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

PROBE="$ROOT/hardening_probe"
if ! cc -O1 -Wall -o "$PROBE" "$HERE/hardening_probe.c" -lpthread 2>"$ROOT/cc.log"; then
  echo "cannot build the probe: $(cat "$ROOT/cc.log")"
  echo "0 passed, 1 failed"
  exit 1
fi
chmod 755 "$PROBE"

# milliseconds the slowest of 20 starts of /bin/true on the host took
host_start_ms() {
  local max=0 t0 t1 d
  for _ in $(seq 20); do
    t0=$EPOCHREALTIME
    /bin/true
    t1=$EPOCHREALTIME
    d=$(((${t1/./} - ${t0/./}) / 1000))
    [ "$d" -gt "$max" ] && max=$d
  done
  echo "$max"
}

# the gate filter is the command's second filter: the runtime applies it once init serves the gate
gate_present() { sbx "$1" -- grep -q '^Seccomp_filters:[[:space:]]*[2-9]' /proc/self/status; }

for u in $USERS; do
  new_case "$u"
  P="$W/probe"  # where the sandbox may execute it
  cp "$PROBE" "$P"
  chown "$u" "$P"

  # --- no user namespace inside (class 3) ---------------------------------------------------------------
  as "$u" "$W" "$H" unshare -U -m --propagation unchanged sh -c "touch '$CASE/marker-host'" 2>/dev/null
  check "$u: (outside, unshare -U -m works, so the test can tell)" test -e "$CASE/marker-host"
  out=$(sbx "$u" -- unshare -U -m true 2>&1)
  check "$u: unshare -U -m fails inside ($out)" test $? -ne 0
  sbx "$u" -- unshare -U -m --propagation unchanged sh -c "touch '$W/marker-userns' '$O/marker-userns'" >/dev/null 2>&1
  check "$u: nothing ran in a new user namespace: no marker in the workdir, none outside" \
    test ! -e "$W/marker-userns" -a ! -e "$O/marker-userns"
  out=$(as "$u" "$W" "$H" "$P" clone3)
  check "$u: (outside, clone3 works: $out)" test "$out" = "ok clone3"
  out=$(sbx "$u" -- "$P" clone3)
  check "$u: clone3 answers ENOSYS inside ($out)" test "$out" = "clone3: ENOSYS"
  out=$(sbx "$u" -- "$P" threads)
  check "$u: a threaded program still runs, through clone ($out)" test "$out" = "ok threads"
  out=$(sbx "$u" -- python3 -c 'import threading
seen = []
ts = [threading.Thread(target=seen.append, args=(i,)) for i in range(4)]
[t.start() for t in ts]
[t.join() for t in ts]
print(sorted(seen))' 2>&1)
  check "$u: python3's threads run ($out)" test "$out" = "[0, 1, 2, 3]"

  # --- keyrings (class 5) -----------------------------------------------------------------------------
  out=$(sbx "$u" -- "$P" key-user)
  check "$u: the user keyring is out of reach (keyctl show @u) ($out)" test "$out" = "keyctl: EPERM"
  out=$(sbx "$u" -- "$P" key-add "cordon-planted-$$" x)
  check "$u: adding a key fails inside ($out)" test "$out" = "add_key: EPERM"
  out=$(as "$u" "$W" "$H" "$P" key-find "cordon-planted-$$")
  check "$u: and none reached the user's keyring on the host ($out)" test "$out" = "keyctl search: ENOKEY"
  serial=$(as "$u" "$W" "$H" "$P" key-add "cordon-test-$$" "s3cr3t-$u")
  case $serial in
    '' | *[!0-9]*) bad "$u: cannot add a key on the host ($serial)" ;;
    *)
      out=$(as "$u" "$W" "$H" "$P" key-read "$serial")
      check "$u: (on the host the key reads back: $out)" test "$out" = "ok s3cr3t-$u"
      out=$(sbx "$u" -- "$P" key-read "$serial" 2>&1)
      check "$u: the host's key is not readable inside, even by its serial ($out)" \
        test -z "$(printf '%s' "$out" | grep s3cr3t)"
      as "$u" "$W" "$H" "$P" key-drop "$serial"
      ;;
  esac

  # --- inherited descriptors (class 9) -----------------------------------------------------------------
  # the caller opens a key the policy denies on fd 7, then runs cordon
  with_fd7() { as "$u" "$W" "$H" sh -c 'exec 7<"$1"; shift; exec "$@"' _ "$H/.ssh/id_ed25519" "$CORDON" run --workdir "$W" "$@"; }
  out=$(with_fd7 -- sh -c 'cat <&7; cat ~/.ssh/id_ed25519' 2>&1)
  check "$u: a descriptor the caller left open is closed inside, and the file is denied by path ($out)" \
    test -z "$(grep 'PRIVATE KEY' <<<"$out")"
  out=$(with_fd7 --pass-fd 7 -- sh -c 'cat <&7' 2>&1)
  check "$u: --pass-fd 7 hands it over ($out)" test "$out" = "PRIVATE KEY"
  out=$(with_fd7 --pass-fd 8 -- sh -c 'echo ran >"$0"' "$W/ran-pass-fd" 2>&1)
  check "$u: --pass-fd of a descriptor that is not open is refused, nothing run ($out)" \
    test ! -e "$W/ran-pass-fd" -a -n "$(grep -e '--pass-fd 8: not an open descriptor' <<<"$out")"

  # --- unix datagrams and io_uring (class 1) -----------------------------------------------------------
  sock="$W/host-dgram.sock"
  "$P" dgram-server "$sock" "$O/received" &
  server=$!
  BG_PIDS="$BG_PIDS $server"
  for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.05; done
  as "$u" "$W" "$H" "$P" dgram-send "$sock" "outside;" >/dev/null
  as "$u" "$W" "$H" "$P" uring-dgram "$sock" "uring-outside;" >/dev/null
  out=$(sbx "$u" -- "$P" dgram-send "$sock" "inside;")
  check "$u: a datagram unix socket cannot be made inside ($out)" test "$out" = "socket: EACCES"
  out=$(sbx "$u" -- "$P" dgram-pair)
  check "$u: nor a datagram socketpair ($out)" test "$out" = "socketpair: EACCES"
  out=$(sbx "$u" --network enabled -- "$P" uring-dgram "$sock" "uring-inside;")
  check "$u: io_uring is refused, even with the network enabled ($out)" test "$out" = "io_uring_setup: EPERM"
  out=$(sbx "$u" -- "$P" stream)
  check "$u: stream unix sockets are fine ($out)" test "$out" = "ok stream socket"
  sleep 0.3
  check "$u: the host's datagram socket got only what was sent from outside ($(cat "$O/received" 2>/dev/null))" \
    test "$(cat "$O/received" 2>/dev/null)" = "outside;uring-outside;"
  kill "$server" 2>/dev/null

  # --- nested seccomp filters ----------------------------------------------------------------------------
  out=$(sbx "$u" -- "$P" nested-plain)
  check "$u: a nested seccomp filter without a listener still loads ($out)" test "$out" = "ok nested filter"
  if gate_present "$u"; then
    out=$(sbx "$u" -- "$P" listener)
    check "$u: a nested filter with a new listener is refused ($out)" test "$out" = "listener: EPERM"
  else
    echo "note: $u: this runtime applies no gate filter yet; the nested-listener refusal is not tested"
  fi

  # --- limits (class 10) ---------------------------------------------------------------------------------
  out=$(sbx "$u" --dry-run -- true | grep '^limits:')
  check "$u: every run gets a process cap ($out)" test "$out" = "limits: procs=4096 memory=none cpu=none"
  mkdir -p "$W/agent"
  printf '#!/bin/sh\ntrue\n' >"$W/agent/claude"
  chmod 755 "$W/agent" "$W/agent/claude"
  chown -R "$u" "$W/agent"
  out=$(sbx "$u" --dry-run -- "$W/agent/claude" | grep '^limits:')
  check "$u: an agent's session gets a memory cap too ($out)" grep -q '^limits: procs=4096 memory=[0-9]' <<<"$out"
  out=$(sbx "$u" --dry-run --limit none -- true | grep '^limits:')
  check "$u: --limit none turns them off ($out)" test "$out" = "limits: procs=none memory=none cpu=none"
  out=$(sbx "$u" --limit procs=bogus -- sh -c 'echo ran >"$0"' "$W/ran-limit" 2>&1)
  check "$u: a bad --limit is a clear error and nothing runs ($out)" \
    test ! -e "$W/ran-limit" -a -n "$(grep "limit 'procs=bogus': procs takes a whole number" <<<"$out")"

  # where PID namespaces have their own pid_max (Linux 6.14), the cap is there, and stays there
  pid_max=$(sbx "$u" -- sh -c 'echo 4194304 >/proc/sys/kernel/pid_max 2>/dev/null; cat /proc/sys/kernel/pid_max')
  if [ "$pid_max" = 4194304 ] || [ "$pid_max" = 4396 ]; then
    check "$u: the run's pid namespace is capped (procs + 300) and the command cannot lift it (got $pid_max)" \
      test "$pid_max" = 4396
  else
    echo "note: $u: no pid_max per PID namespace here (got $pid_max): RLIMIT_NPROC alone holds procs"
  fi

  # a fork bomb: held at its cap, the host still starts commands, another run works, and nothing of it
  # is left once the command ends
  mark="bomb_$$_$u"
  idle=$(host_start_ms)
  sbx "$u" --limit procs=256 -- bash -c "$mark() { $mark | $mark & }; $mark; sleep 3" >/dev/null 2>"$CASE/bomb.err" &
  bomb=$!
  sleep 1.5
  during=$(host_start_ms)
  tasks=$(pgrep -f "^bash -c $mark" | wc -l)
  second=$(sbx "$u" -- echo second-run 2>&1)
  wait "$bomb"
  status=$?
  sleep 0.5
  left=$(pgrep -f "^bash -c $mark" | wc -l)
  echo "measured: $u: fork bomb under procs=256: $tasks tasks; slowest host start ${during} ms (idle ${idle} ms)"
  check "$u: the fork bomb is held at its cap ($tasks tasks, root's cap counts pids: at most 555)" \
    test "$tasks" -ge 50 -a "$tasks" -le 556
  check "$u: the host still starts a command within 500 ms meanwhile (slowest: $during ms)" test "$during" -lt 500
  check "$u: another run works meanwhile ($second)" test "$second" = second-run
  check "$u: the bomb saw its forks refused" grep -q 'Resource temporarily unavailable' "$CASE/bomb.err"
  check "$u: the run ended (status $status) and nothing of it is left ($left tasks)" test "$left" -eq 0

  # a memory hog: stopped at its limit, its peak seen from the host
  hog="hog_$$_$u"
  sbx "$u" --limit memory=256M -- python3 -c "# $hog
chunks = []
while True:
    chunks.append(bytearray(8 << 20))" 2>"$CASE/hog.err" &
  pid=$!
  peak=0
  for _ in $(seq 400); do
    kill -0 "$pid" 2>/dev/null || break
    for p in $(pgrep -f "$hog" 2>/dev/null); do
      rss=$(awk '/^VmHWM/ {print $2}' "/proc/$p/status" 2>/dev/null)
      [ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
    done
    sleep 0.05
  done
  wait "$pid"
  status=$?
  echo "measured: $u: memory hog under memory=256M: peak $((peak / 1024)) MB, exit $status"
  check "$u: the memory hog ends with a clear error (exit $status: $(tail -1 "$CASE/hog.err"))" \
    grep -q MemoryError "$CASE/hog.err"
  check "$u: its memory never passed the limit (peak $((peak / 1024)) MB)" test "$peak" -gt 0 -a "$peak" -le $((256 * 1024 + 32 * 1024))
  out=$(sbx "$u" -- echo after-hog 2>&1)
  check "$u: a run after it works ($out)" test "$out" = after-hog

  # a CPU hog: SIGXCPU at its CPU-seconds limit (cordon ends as the command did: 128 + 24)
  t0=$SECONDS
  sbx "$u" --limit cpu=1 -- sh -c 'while :; do :; done' 2>/dev/null
  status=$?
  took=$((SECONDS - t0))
  check "$u: a CPU hog is stopped at cpu=1 (exit $status, after $took s)" test "$status" -eq 152 -a "$took" -le 6

  # a run cache hit applies the same limits
  first=$(as "$u" "$W" "$H" env CORDON_TRACE=1 "$CORDON" run --workdir "$W" --limit memory=300M -- sh -c 'ulimit -d' 2>&1)
  again=$(as "$u" "$W" "$H" env CORDON_TRACE=1 "$CORDON" run --workdir "$W" --limit memory=300M -- sh -c 'ulimit -d' 2>&1)
  check "$u: a run cache hit keeps the limits ($(echo $again))" \
    test -n "$(grep 'run-cache: hit' <<<"$again")" -a "$(tail -1 <<<"$again")" = 307200
  : "$first"
done
finish
