#!/usr/bin/env bash
# tests/enforce/test_process.sh — processes outside the sandbox are out of reach: not in its PID
# namespace, no signals (Landlock scoping, ABI >= 6 as well), no ptrace and no /proc/<pid> reads; inside,
# the command still manages its own children. Each denied case checks the outside process is still alive.
. "$(dirname "$0")/lib.sh"

for u in $USERS; do
  new_case "$u"
  as_exec "$u" "$O" "$H" sleep 60 &
  victim=$!
  BG_PIDS="$BG_PIDS $victim"
  sleep 0.3
  if [ -z "$victim" ]; then
    bad "$u: could not start a process outside"
    continue
  fi
  inside() {  # inside "description" CMD: runs in the sandbox, must fail (exit 42) and leave the victim alive
    local d=$1
    shift
    sbx "$u" -- sh -c "$1 || exit 42" >/dev/null 2>&1
    local rc=$?
    if [ "$rc" -eq 42 ] && kill -0 "$victim" 2>/dev/null; then ok "$u: $d"; else bad "$u: $d (exit $rc)"; fi
  }
  if [ "$LL_ABI" -ge 6 ]; then
    inside "signal a process outside (kill -TERM)" "kill -TERM $victim"
    inside "probe a process outside (kill -0)" "kill -0 $victim"
  else
    echo "note: Landlock ABI $LL_ABI < 6: signal scoping not tested"
  fi
  inside "read /proc/<pid>/environ of a process outside (needs ptrace access)" "cat /proc/$victim/environ"
  inside "read /proc/<pid>/mem of a process outside" "dd if=/proc/$victim/mem bs=1 count=1 skip=4096"
  if command -v python3 >/dev/null; then
    cp "$ENFORCE_DIR/ptrace_attach.py" "$W/ptrace_attach.py"  # in the workdir: the run sees no more
    inside "ptrace-attach to a process outside" "python3 ptrace_attach.py $victim"
    check "$u: ptrace-attach to a child of the sandboxed command works (the helper is sound)" \
      sbx "$u" -- sh -c 'sleep 5 & sleep 0.3; python3 ptrace_attach.py $!; rc=$?; kill $!; exit $rc'
  fi
  check "$u: the command can still signal its own children" \
    sbx "$u" -- sh -c 'sleep 30 & kill -TERM $!; wait $!; [ $? -eq 143 ]'
  check "$u: the outside process survived" kill -0 "$victim"
done
finish
