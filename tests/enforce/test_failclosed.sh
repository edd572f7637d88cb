#!/usr/bin/env bash
# tests/enforce/test_failclosed.sh — when the sandbox cannot be applied the command does not run: exit 125,
# a typed error with a hint, and the marker the command would have written is absent. Kernel failures are
# injected with a seccomp filter around the real binary (deny_syscall.c), not with a switch in cordon.
. "$(dirname "$0")/lib.sh"

command -v cc >/dev/null || skip "no C compiler to build the failure-injection helper"
build_helper deny_syscall deny_syscall.c -lseccomp || { bad "build the failure-injection helper"; finish; exit 1; }
HELPER="$BIN/deny_syscall"

for u in $USERS; do
  new_case "$u"
  MARK="$W/ran"
  # fails NAME ERRNO "description" EXPECTED-TEXT [cordon options]
  fails() {
    local name=$1 err=$2 d=$3 text=$4
    shift 4
    rm -f "$MARK"
    local out rc
    out=$(as "$u" "$W" "$H" "$HELPER" "$name" "$err" "$CORDON" run --workdir "$W" "$@" -- sh -c "touch '$MARK'" 2>&1)
    rc=$?
    if [ "$rc" -eq 125 ] && [ ! -e "$MARK" ] && printf '%s' "$out" | grep -q -- "$text"; then
      ok "$u: $d"
    else
      bad "$u: $d (exit $rc, marker $(state "$MARK"), output: $out)"
    fi
  }
  fails landlock_create_ruleset 38 "Landlock missing (ENOSYS): exit 125, command not run" "backend_not_available"
  fails landlock_create_ruleset 38 "Landlock missing: the message names the kernel requirement" "CONFIG_SECURITY_LANDLOCK"
  fails landlock_create_ruleset 95 "Landlock disabled at boot (EOPNOTSUPP): the hint names lsm=" "lsm="
  fails landlock_restrict_self 1 "Landlock refusing to enforce: exit 125, command not run" "landlock_restrict_self"
  before=$(tree_state "$W")
  fails unshare 1 "no mount namespace: exit 125, command not run" "unshare"
  expect_eq "$u: a run that failed to start left nothing in the workdir" "$(tree_state "$W")" "$before"
  fails mount 1 "a view that cannot be mounted: exit 125, command not run" "mount"
  fails pivot_root 1 "a view that cannot be pivoted into: exit 125, command not run" "pivot"
  fails seccomp 22 "seccomp refusing the filter: exit 125, command not run" "seccomp"
  # init joins a fresh session keyring before the command starts (docs/linux-sandbox.md, "Processes"):
  # a run that cannot leave the caller's keyring behind does not run
  fails keyctl 1 "no fresh session keyring: exit 125, command not run" "keyring"
  # and the same command runs when nothing is injected, so the checks above test the failure
  rm -f "$MARK"
  as "$u" "$W" "$H" "$CORDON" run --workdir "$W" -- sh -c "touch '$MARK'"
  check "$u: without injected failures the marker command runs" test -e "$MARK"
done
finish
