#!/usr/bin/env bash
# tests/enforce/test_lifetime.sh — issue 9, class 3: nothing started inside outlives the run, and cordon
# stays a transparent supervisor. As root and as an unprivileged user: a process the command detaches
# (setsid, a double-forked daemon ignoring SIGHUP and SIGTERM, nohup) is gone once cordon returns, checked
# on the host with ps; a nested user namespace cannot be made to leave the run; after cordon exits there
# is nothing left to write with (a writer that waits for the end never writes, a heartbeat stops); signals
# sent to cordon reach the command; exit codes and signal deaths pass through unchanged. (Nested user
# namespaces in depth are test_hardening.sh's.)
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed to read raw wait statuses"

# how USER [cordon run options] -- CMD…: how cordon ended, as Python's subprocess reports it: the exit
# code, or minus the signal that killed it (bash would print 143 for both exit 143 and SIGTERM).
how() {
  local user=$1
  shift
  as "$user" "$W" "$H" python3 -c 'import subprocess, sys; print(subprocess.run(sys.argv[1:]).returncode)' \
    "$CORDON" run --workdir "$W" "$@"
}
# left TAG: the host's processes whose command line holds TAG
left() { pgrep -f -- "$1" | tr '\n' ' '; }
ms() { echo $(($(date +%s%N) / 1000000)); }

for u in $USERS; do
  new_case "$u"
  tag="300.$$$CASE_N"  # a sleep duration no other process on the machine has

  # --- what the command leaves behind ends with it -------------------------------------------------
  # (through a pipe read to its end, with a deadline: a process left holding it would keep it open)
  t0=$(ms)
  out=$(as "$u" "$W" "$H" python3 -c 'import subprocess, sys
try:
    print(subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, timeout=20).stdout.decode().strip())
except subprocess.TimeoutExpired:
    print("still open after 20 s")' "$CORDON" run --workdir "$W" -- sh -c "
    setsid sleep ${tag}1 &
    (setsid sh -c 'trap \"\" HUP TERM; sleep ${tag}2' &) &
    nohup sleep ${tag}3 >/dev/null 2>&1 &
    sleep 0.3; echo started")
  t1=$(ms)
  expect_eq "$u: the command started its detached processes" "$out" started
  sleep "${tag}0" &
  check "$u: control: ps on the host finds a process by its tag" test -n "$(left "sleep ${tag}0")"
  kill $! 2>/dev/null
  check "$u: cordon returned at once, nothing holding its output open ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 5000
  expect_eq "$u: a setsid process is gone once cordon returns (ps on the host)" "$(left "sleep ${tag}1")" ""
  expect_eq "$u: a double-forked daemon ignoring SIGHUP and SIGTERM is gone too" "$(left "sleep ${tag}2")" ""
  expect_eq "$u: so is a nohup one" "$(left "sleep ${tag}3")" ""
  # a descriptor the caller passed in is held by nothing of the run once cordon returns
  : >"$CASE/held" && chmod 666 "$CASE/held"
  sbx "$u" -- sh -c "setsid sleep ${tag}6 & sleep 0.2" 7>>"$CASE/held"
  holders=$(for fd in /proc/[0-9]*/fd/*; do [ "$(readlink "$fd" 2>/dev/null)" = "$CASE/held" ] && echo "${fd%/fd/*}"; done | sort -u | tr '\n' ' ')
  expect_eq "$u: no process holds a descriptor the caller passed in, once cordon returned" "$holders" ""

  # --- no way out through a new user namespace ---------------------------------------------------------
  sbx "$u" -- unshare -U -m --propagation unchanged true 2>/dev/null
  check "$u: unshare -U -m --propagation unchanged fails inside" test $? -ne 0
  sbx "$u" -- sh -c "unshare -U -m --propagation unchanged sh -c 'setsid sleep ${tag}4 &'; unshare -U -r setsid sleep ${tag}5 & sleep 0.3" 2>/dev/null
  expect_eq "$u: whatever a nested namespace started is gone with the run" "$(left "sleep ${tag}[45]")" ""

  # --- after the end there is nothing left to write with ------------------------------------------------
  hook_before=$(state "$W/.git/hooks/pre-commit")
  out_before=$(state "$O/file")
  sbx "$u" -- sh -c '
    (sleep 1; echo evil >.git/hooks/pre-commit; echo late >late) </dev/null >/dev/null 2>&1 &
    (while :; do echo beat >>heartbeat; sleep 0.05; done) </dev/null >/dev/null 2>&1 &
    sleep 0.3'
  sleep 0.2
  beats=$(wc -l <"$W/heartbeat" 2>/dev/null)
  sleep 1.5
  check "$u: the heartbeat started inside (${beats:-no} beats)" test "${beats:-0}" -gt 0
  expect_eq "$u: ... and stopped when cordon returned" "$(wc -l <"$W/heartbeat" 2>/dev/null)" "$beats"
  check "$u: a writer waiting for the end never wrote (no 'late' in the workdir)" test ! -e "$W/late"
  expect_eq "$u: ... nor a protected path" "$(state "$W/.git/hooks/pre-commit")" "$hook_before"
  expect_eq "$u: ... nor anything outside" "$(state "$O/file")" "$out_before"
  # cordon returns the command's status without waiting for the namespaces' teardown (pidns.c): the run
  # must be over by then, so a writer appending as fast as it can is silent from the moment cordon returns
  # (its size read at once by the caller, then again later)
  sizes=$(as "$u" "$W" "$H" python3 -c 'import os, subprocess, sys, time
subprocess.run(sys.argv[1:])
at = os.stat("burst").st_size if os.path.exists("burst") else 0
time.sleep(0.5)
print(at, os.stat("burst").st_size if os.path.exists("burst") else 0)' "$CORDON" run --workdir "$W" -- python3 -c '
import os, subprocess, sys
if os.fork() == 0:
    os.setsid()
    fd = os.open("burst", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    while True:
        os.write(fd, b"x")
else:
    import time; time.sleep(0.3)')
  read -r at_return later <<<"$sizes"
  check "$u: the burst writer ran inside (${at_return:-no} bytes)" test "${at_return:-0}" -gt 0
  expect_eq "$u: ... and wrote nothing after cordon returned" "$later" "$at_return"

  # --- exit codes and deaths pass through unchanged ------------------------------------------------------
  for code in 0 3 130 255; do
    expect_eq "$u: exit $code is cordon's exit $code" "$(how "$u" -- sh -c "exit $code")" "$code"
  done
  for sig in TERM INT HUP KILL; do
    num=$(kill -l "$sig")
    expect_eq "$u: a command killed by SIG$sig kills cordon by SIG$sig" "$(how "$u" -- sh -c "kill -$sig \$\$")" "-$num"
  done
  as "$u" "$W" "$H" bash -c '"$@"; echo $? >status' _ "$CORDON" run --workdir "$W" -- sh -c 'kill -TERM $$' 2>/dev/null
  expect_eq "$u: bash reports 143 for it" "$(cat "$W/status")" 143
  check "$u: a command that cannot be found is 127" test "$(how "$u" -- /nonexistent/cmd 2>/dev/null)" = 127

  # --- signals sent to cordon reach the command ----------------------------------------------------------
  for sig in TERM HUP USR1; do
    rm -f "$W/ready" "$W/got"
    (as_exec "$u" "$W" "$H" "$CORDON" run --workdir "$W" -- \
      sh -c "trap 'echo $sig >got; exit 7' $sig; echo >ready; for i in \$(seq 100); do sleep 0.05; done") &
    sup=$!
    wait_for "$W/ready" 100
    kill "-$sig" "$sup"
    wait "$sup"
    rc=$?
    check "$u: SIG$sig sent to cordon reaches the command's trap (exit $rc, got $(cat "$W/got" 2>/dev/null))" \
      test "$rc" = 7 -a "$(cat "$W/got" 2>/dev/null)" = "$sig"
  done

  rm -f "$W/ready" "$W/late"
  (as_exec "$u" "$W" "$H" "$CORDON" run --workdir "$W" -- sh -c 'echo >ready; sleep 1; echo >late') &
  sup=$!
  wait_for "$W/ready" 100
  kill -KILL "$sup"
  wait "$sup" 2>/dev/null
  sleep 1.5
  check "$u: cordon killed by SIGKILL takes the command with it (it never wrote 'late')" test -e "$W/ready" -a ! -e "$W/late"
done
finish
