#!/usr/bin/env bash
# tests/enforce/test_placeholder_lifetime.sh — placeholders (masks over missing protected paths) live as
# long as any process of the sandbox does, and go once it is empty. Every run has a PID namespace now, so
# a process the command leaves behind ends with it and never plants anything. Root and unprivileged.
. "$(dirname "$0")/lib.sh"

for u in $USERS; do
  new_case "$u"
  check "$u: .agents is missing before" test ! -e "$W/.agents"
  # the command returns at once, leaving a process in the sandbox that, 2.5 s later, tries to plant a
  # file in the protected path (it must fail: the mask is still there)
  sbx "$u" -- sh -c '(sleep 2.5; mkdir -p .agents/late; touch .agents/late-evil) </dev/null >/dev/null 2>&1 &'
  check "$u: the command itself returned" test $? -eq 0
  sleep 1.5
  check "$u: a process left in the sandbox ends with the command (every run has a PID namespace)" \
    test -z "$(pgrep -u "$u" -f 'sleep 2.5')"
  sleep 1.5
  check "$u: the process left behind could not plant anything" test -z "$(ls -A "$W/.agents" 2>/dev/null)"
  check "$u: the placeholder goes once the sandbox is empty" eventually_absent "$W/.agents"

  # the cleaner outlives the command by up to half a second: it must not keep the caller's descriptors
  # (a pipe held open there would keep the caller's reader waiting for its end)
  : >"$CASE/held"
  chmod 666 "$CASE/held"
  sbx "$u" -- true 7>>"$CASE/held"
  holders=""
  for pid in $(pgrep -x cordon-cleaner); do
    ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "$CASE/held" && holders="$holders $pid"
  done
  check "$u: a cleaner was there to look at" test -n "$(pgrep -x cordon-cleaner)"
  check "$u: no cleaner holds a descriptor the caller passed in (holders:$holders)" test -z "$holders"
  check "$u: and the placeholders still go" eventually_absent "$W/.agents"
done
finish
