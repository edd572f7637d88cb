#!/usr/bin/env bash
# tests/enforce/test_run_options.sh — `cordon run --private-tmp`, `--shared-tmp` and `--best-effort` reach
# the Linux runtime from the command line: a fresh /tmp that leaves the host's untouched (the default;
# the flag is kept), the host's /tmp on request, and best effort that still enforces on a kernel that has
# everything (it only relaxes the ABI floor).
. "$(dirname "$0")/lib.sh"

for u in $USERS; do
  new_case "$u"
  echo host >"/tmp/cordon-host-$$-$u"
  out=$(sbx "$u" --private-tmp -- sh -c 'ls -A /tmp | wc -l; echo mine >/tmp/cordon-private-x && cat /tmp/cordon-private-x')
  check "$u: cordon run --private-tmp starts with an empty, writable /tmp (got: $(echo $out))" test "$(echo $out)" = "0 mine"
  check "$u: the host's /tmp is untouched by --private-tmp" test "$(cat "/tmp/cordon-host-$$-$u")" = host -a ! -e /tmp/cordon-private-x
  out=$(sbx "$u" --shared-tmp -- cat "/tmp/cordon-host-$$-$u")
  check "$u: --shared-tmp shows the host's /tmp (got: $out)" test "$out" = host
  sbx "$u" --private-tmp --shared-tmp -- true 2>/dev/null
  check "$u: --private-tmp and --shared-tmp together are refused" test $? = 125
  rm -f "/tmp/cordon-host-$$-$u"

  before=$(state "$O/file")
  sbx "$u" --best-effort -- sh -c "echo pwned >'$O/file'" 2>/dev/null
  check "$u: --best-effort still denies a write outside the workdir" test "$(state "$O/file")" = "$before"
  out=$(sbx "$u" --best-effort -- sh -c 'cat file')
  check "$u: --best-effort still runs the command" test "$out" = inside
done
finish
