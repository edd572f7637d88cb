#!/usr/bin/env bash
# tests/enforce/test_pidns.sh — every run has its own PID namespace and /proc (docs/linux-sandbox.md,
# "Processes"; --private-proc is always on): every process of the command, children included, reads its
# own /proc/self; /proc lists only the run's processes (init and the command), never a host process;
# the run cache keeps it so; a failure building it is exit 125 with nothing run; --private-proc is still
# accepted, --no-private-proc refused. How the run ends (exit codes, signals, what it leaves behind) is
# test_lifetime.sh's.
. "$(dirname "$0")/lib.sh"

build_helper deny_syscall deny_syscall.c -lseccomp || echo "note: no failure-injection helper (cc, libseccomp)"

# a host process the sandbox must not see
sleep 300 &
HOST=$!
BG_PIDS="$BG_PIDS $HOST"

for u in $USERS; do
  new_case "$u"

  out=$(sbx "$u" -- sh -c 'cat /proc/self/status | grep -c "^Pid:"; ls /proc/self/fd >/dev/null && echo fd')
  expect_eq "$u: a child of the command reads its own /proc/self (status, fd), with no flag" "$(echo $out)" "1 fd"

  # the shell's own glob: no child of it to race with the listing
  pids=$(sbx "$u" -- sh -c 'cd /proc && echo [0-9]*')
  expect_eq "$u: /proc lists only the run's processes, init and the command" "$pids" "1 2"
  case " $pids " in *" $HOST "*) bad "$u: the host's sleep ($HOST) is listed" ;; *) ok "$u: the host's sleep is not listed" ;; esac
  out=$(sbx "$u" -- ps -e -o pid=,comm= | awk '{print $1, ($2 ~ /^cordon/ ? "cordon" : $2)}' | tr '\n' ' ')
  expect_eq "$u: ps -e shows the run only: its init and ps itself" "$out" "1 cordon 2 ps "
  out=$(sbx "$u" -- sh -c "test -e /proc/$HOST && echo present || echo absent")
  expect_eq "$u: a host process's /proc/<pid> is absent" "$out" absent
  out=$(sbx "$u" -- sh -c 'echo $$')
  expect_eq "$u: the command is pid 2, under the namespace's init" "$out" 2

  if [ -x "$BIN/deny_syscall" ]; then
    # init's first mount builds the view in the new namespace: a failure there is reported from inside
    rm -f "$W/ran"
    out=$(as "$u" "$W" "$H" "$BIN/deny_syscall" mount 1 "$CORDON" run --workdir "$W" -- sh -c 'echo >ran' 2>&1)
    rc=$?
    check "$u: init failing to mount is exit 125, the command not run (exit $rc: $out)" \
      test "$rc" = 125 -a ! -e "$W/ran" -a -n "$(grep -i 'mount' <<<"$out")"
  fi

  # the run cache: a second identical run is a hit, and still in its own namespace (once the files the
  # policy reads, which new_case wrote just now, are old enough to be trusted by their identity)
  sleep 1.1
  first=$(as "$u" "$W" "$H" env CORDON_TRACE=1 "$CORDON" run --workdir "$W" -- sh -c 'ls /proc/self/fd >/dev/null && echo $$' 2>&1)
  second=$(as "$u" "$W" "$H" env CORDON_TRACE=1 "$CORDON" run --workdir "$W" -- sh -c 'ls /proc/self/fd >/dev/null && echo $$' 2>&1)
  check "$u: the first run is a miss ($(echo $first))" grep -q 'run-cache: miss' <<<"$first"
  check "$u: the second is a hit and still pid 2 with its own /proc ($(echo $second))" \
    test "$(grep -c 'run-cache: hit' <<<"$second")" = 1 -a "$(tail -1 <<<"$second")" = 2

  # an agent's session is no different now; the flags that chose it
  mkdir -p "$W/agent"
  printf '#!/bin/sh\nsh -c "cat /proc/self/status >/dev/null && echo child-reads-proc"\n' >"$W/agent/claude"
  chmod 755 "$W/agent" "$W/agent/claude"
  chown -R "$u" "$W/agent"
  out=$(sbx "$u" -- "$W/agent/claude" 2>&1)
  expect_eq "$u: an agent's children read their /proc/self" "$out" child-reads-proc
  out=$(sbx "$u" --private-proc -- sh -c 'echo $$' 2>&1)
  expect_eq "$u: --private-proc is still accepted (always on)" "$out" 2
  rm -f "$W/ran"
  out=$(sbx "$u" --no-private-proc -- sh -c 'echo >ran' 2>&1)
  rc=$?
  check "$u: --no-private-proc is refused, exit 125, nothing run (exit $rc: $out)" test "$rc" = 125 -a ! -e "$W/ran"
done
finish
