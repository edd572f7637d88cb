#!/usr/bin/env bash
# tests/enforce/test_placeholder_lifetime.sh — placeholders (masks over missing protected paths) live as
# long as any process of the sandbox does, not just the command: a process the command leaves behind
# keeps them, and with them its masks; once it is gone they go too. Root and unprivileged.
. "$(dirname "$0")/lib.sh"

for u in $USERS; do
  new_case "$u"
  check "$u: .agents is missing before" test ! -e "$W/.agents"
  # the command returns at once, leaving a process in the sandbox that, 2.5 s later, tries to plant a
  # file in the protected path (it must fail: the mask is still there)
  sbx "$u" -- sh -c '(sleep 2.5; mkdir -p .agents/late; touch .agents/late-evil) </dev/null >/dev/null 2>&1 &'
  check "$u: the command itself returned" test $? -eq 0
  sleep 1.5
  check "$u: the placeholder stays while a process left in the sandbox lives" test -d "$W/.agents"
  sleep 1.5
  check "$u: the process left behind could not plant anything" test -z "$(ls -A "$W/.agents" 2>/dev/null)"
  check "$u: the placeholder goes once the sandbox is empty" eventually_absent "$W/.agents"
done
finish
