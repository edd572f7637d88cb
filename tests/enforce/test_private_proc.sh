#!/usr/bin/env bash
# tests/enforce/test_private_proc.sh — `cordon run --private-proc` (docs/linux-backend.md, "Private /proc"):
# every process of the command, children included, reads its own /proc/self; /proc lists only the
# sandbox's processes; cordon stays outside as a transparent supervisor (exit codes, deaths by signal,
# signals sent to it, stdin and stdout); any failure before the command's execve is exit 125 with
# nothing run; the run cache keeps the flag. Without the flag nothing changes (no PID namespace).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed to read raw wait statuses"
HELPER="$ROOT/deny_syscall"
cc -o "$HELPER" "$HERE/deny_syscall.c" -lseccomp 2>"$ROOT/cc.log" || HELPER=""

# how USER [cordon run options] -- CMD…: how cordon ended, as Python's subprocess reports it: the exit
# code, or minus the signal that killed it (bash would print 143 for both exit 143 and SIGTERM).
how() {
  local user=$1
  shift
  as "$user" "$W" "$H" python3 -c 'import subprocess, sys; print(subprocess.run(sys.argv[1:]).returncode)' \
    "$CORDON" run --workdir "$W" "$@"
}

# a host process the sandbox must not see
sleep 300 &
HOST=$!
BG_PIDS="$BG_PIDS $HOST"

for u in $USERS; do
  new_case "$u"

  out=$(sbx "$u" --private-proc -- sh -c 'cat /proc/self/status | grep -c "^Pid:"; ls /proc/self/fd >/dev/null && echo fd')
  check "$u: a child of the command reads its own /proc/self (status, fd) (got: $(echo $out))" test "$(echo $out)" = "1 fd"
  out=$(sbx "$u" -- sh -c 'cat /proc/self/status 2>/dev/null | grep -c "^Pid:"')
  check "$u: without the flag a child reads it too: every run has a PID namespace (got: $out)" test "$out" = 1

  # the shell's own glob: no child of it to race with the listing
  pids=$(sbx "$u" --private-proc -- sh -c 'cd /proc && echo [0-9]*')
  check "$u: /proc lists only the sandbox's processes, init and the command (got: $pids)" test "$pids" = "1 2"
  case " $pids " in *" $HOST "*) bad "$u: the host's sleep ($HOST) is listed" ;; *) ok "$u: the host's sleep is not listed" ;; esac
  if command -v ps >/dev/null; then
    out=$(sbx "$u" --private-proc -- ps -e -o comm=)
    check "$u: ps -e shows the sandbox only (got: $(echo $out))" test "$(echo $out)" = "cordon ps"
  fi
  out=$(sbx "$u" --private-proc -- sh -c "test -e /proc/$HOST && echo present || echo absent")
  check "$u: a host process's /proc/<pid> is absent (got: $out)" test "$out" = absent
  out=$(sbx "$u" --private-proc -- sh -c 'echo $$')
  check "$u: the command is pid 2, under the namespace's init (got: $out)" test "$out" = 2
  out=$(sbx "$u" -- sh -c 'echo $$')
  check "$u: without the flag the command is pid 2 as well (got: $out)" test "$out" = 2

  if command -v node >/dev/null; then
    out=$(sbx "$u" --private-proc -- sh -c 'node -e "process.stdout.write(String(process.memoryUsage().rss > 0))"' 2>&1)
    check "$u: node's process.memoryUsage() works in a child (got: $out)" test "$out" = true
  fi

  check "$u: exit 3 is cordon's exit 3" test "$(how "$u" --private-proc -- sh -c 'exit 3')" = 3
  check "$u: exit 130 stays an exit" test "$(how "$u" --private-proc -- sh -c 'exit 130')" = 130
  check "$u: a command killed by SIGTERM kills cordon by SIGTERM" test "$(how "$u" --private-proc -- sh -c 'kill -TERM $$')" = -15
  check "$u: a command killed by SIGINT kills cordon by SIGINT" test "$(how "$u" --private-proc -- sh -c 'kill -INT $$')" = -2
  as "$u" "$W" "$H" bash -c '"$@"; echo $? >status' _ "$CORDON" run --workdir "$W" --private-proc -- sh -c 'kill -TERM $$' 2>/dev/null
  check "$u: bash reports 143 for it" test "$(cat "$W/status")" = 143

  out=$(printf 'hello\n' | sbx "$u" --private-proc -- tr a-z A-Z)
  check "$u: stdin and stdout pass through (got: $out)" test "$out" = HELLO

  rm -f "$W/ready" "$W/marker"
  (as_exec "$u" "$W" "$H" "$CORDON" run --workdir "$W" --private-proc -- \
    sh -c 'trap "echo got-term >marker; exit 7" TERM; echo >ready; for i in $(seq 100); do sleep 0.05; done') &
  sup=$!
  for i in $(seq 100); do [ -e "$W/ready" ] && break; sleep 0.05; done
  kill -TERM "$sup"
  wait "$sup"
  rc=$?
  check "$u: SIGTERM sent to cordon reaches the command's trap (exit $rc)" test "$rc" = 7 -a "$(cat "$W/marker" 2>/dev/null)" = got-term

  rm -f "$W/ready" "$W/late"
  (as_exec "$u" "$W" "$H" "$CORDON" run --workdir "$W" --private-proc -- sh -c 'echo >ready; sleep 1; echo >late') &
  sup=$!
  for i in $(seq 100); do [ -e "$W/ready" ] && break; sleep 0.05; done
  kill -KILL "$sup"
  wait "$sup" 2>/dev/null
  sleep 1.5
  check "$u: cordon killed by SIGKILL takes the command with it" test -e "$W/ready" -a ! -e "$W/late"

  check "$u: a command that cannot be found is 127" test "$(how "$u" --private-proc -- /nonexistent/cmd 2>/dev/null)" = 127
  if [ -n "$HELPER" ]; then
    # the first mount is init's own, in the new namespace: a failure there is reported from inside
    rm -f "$W/ran"
    out=$(as "$u" "$W" "$H" "$HELPER" mount 1 "$CORDON" run --workdir "$W" --private-proc -- sh -c 'echo >ran' 2>&1)
    rc=$?
    check "$u: init failing to mount is exit 125, the command not run (exit $rc: $out)" \
      test "$rc" = 125 -a ! -e "$W/ran" -a -n "$(grep -e '--private-proc: making mounts private' <<<"$out")"
  fi

  # the run cache: a second identical run is a hit, and still private
  first=$(as "$u" "$W" "$H" env CORDON_TRACE=1 "$CORDON" run --workdir "$W" --private-proc -- sh -c 'ls /proc/self/fd >/dev/null && echo $$' 2>&1)
  second=$(as "$u" "$W" "$H" env CORDON_TRACE=1 "$CORDON" run --workdir "$W" --private-proc -- sh -c 'ls /proc/self/fd >/dev/null && echo $$' 2>&1)
  check "$u: the first --private-proc run is a miss ($(echo $first))" grep -q 'run-cache: miss' <<<"$first"
  check "$u: the second is a hit and still private ($(echo $second))" test "$(grep -c 'run-cache: hit' <<<"$second")" = 1 -a \
    "$(tail -1 <<<"$second")" = 2

  # an agent's session gets it by default: a command named like an agent selects its profile
  mkdir -p "$W/agent"
  printf '#!/bin/sh\nsh -c "cat /proc/self/status >/dev/null && echo child-reads-proc"\n' >"$W/agent/claude"
  chmod 755 "$W/agent" "$W/agent/claude"
  chown -R "$u" "$W/agent"
  out=$(sbx "$u" -- "$W/agent/claude" 2>&1)
  check "$u: an agent's children read their /proc/self without the flag ($out)" test "$out" = child-reads-proc
  out=$(sbx "$u" --no-private-proc -- "$W/agent/claude" 2>&1)
  check "$u: --no-private-proc is refused, saying why ($out)" grep -q "every run has its own PID namespace" <<<"$out"
  sbx "$u" --private-proc --no-private-proc -- true 2>/dev/null
  check "$u: both flags at once are refused" test $? = 125
done
finish
