#!/usr/bin/env bash
# tests/enforce/test_escape_coredump.sh — core dumps (found by the eighth session's attack, finding 17): the
# kernel writes a core file where the crashing process stands without a call the gate sees, so a crash in
# .git/hooks left a file there on the host, past the "hooks holds only *.sample" rule; with a |handler in
# core_pattern the host's handler would read the run's memory. The run's core limit is 1 byte, hard.
# Checked on the host: no core file in .git/hooks or the workdir after a crash inside.
. "$(dirname "$0")/lib.sh"
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null || true)

for u in $USERS; do
  new_case "$u"
  host "$u" git init -q .
  expect_eq "$u: inside, the hard core limit is 1 and cannot be raised" \
    "$(sbx "$u" -- sh -c 'grep "core file" /proc/self/limits | tr -s " " | cut -d" " -f6; ulimit -c unlimited 2>/dev/null && echo raised || echo refused' 2>/dev/null | tr '\n' ' ')" \
    "1 refused "
  sbx "$u" -- sh -c 'cd .git/hooks && ulimit -c 1; sh -c "kill -SEGV \$\$"; cd ../.. && sh -c "kill -SEGV \$\$"' >/dev/null 2>&1
  expect_eq "$u: no core file in .git/hooks or the workdir on the host" \
    "$(ls "$W/.git/hooks" "$W" | grep -c '^core' || true)" "0"
  # control: the same crash on the host, with the limit raised, writes one (where core_pattern writes files)
  if [ "$pattern" = core ]; then
    host "$u" sh -c 'ulimit -c unlimited 2>/dev/null; sh -c "kill -SEGV \$\$"' >/dev/null 2>&1
    expect_eq "$u: control: a crash on the host leaves a core file" "$(ls "$W" | grep -c '^core' || true)" "1"
    rm -f "$W"/core*
  fi
done
finish
