#!/usr/bin/env bash
# tests/enforce/test_exec.sh — the command runs as if cordon were not there: exit status and signals
# propagate, stdio passes through, the working directory holds, 126/127 for commands that cannot run;
# the terminal cannot be fed keystrokes (TIOCSTI); /tmp and /dev/shm are the run's own.
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || skip "python3 is needed to observe signal deaths"
for u in $USERS; do
  new_case "$u"
  sbx "$u" -- sh -c 'exit 7'
  check "$u: the command's exit status propagates" test $? -eq 7
  # python3 sees how cordon itself ended: a negative return code is a death by that signal
  if [ "$u" = "$(id -un)" ]; then drop=(); else drop=(setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups); fi
  death=$(python3 -c 'import subprocess,sys
print(subprocess.run(sys.argv[3:], cwd=sys.argv[1], env={"HOME": sys.argv[2], "PATH": "/usr/bin:/bin"}).returncode)' \
    "$W" "$H" "${drop[@]}" "$CORDON" run --workdir "$W" -- sh -c 'kill -TERM $$')
  check "$u: a signal death propagates as the same signal (got $death)" test "$death" = -15
  out=$(echo piped | sbx "$u" -- cat)
  check "$u: stdin and stdout pass through" test "$out" = piped
  err=$(sbx "$u" -- sh -c 'echo to-stderr >&2' 2>&1 >/dev/null)
  check "$u: stderr passes through" test "$err" = to-stderr
  out=$(sbx "$u" -- pwd)
  check "$u: the command runs in the working directory" test "$out" = "$W"
  sbx "$u" -- no-such-command-cordon-test >/dev/null 2>&1
  check "$u: a missing command exits 127" test $? -eq 127
  printf 'echo hi\n' >"$W/not-executable"
  chown "$u" "$W/not-executable"
  sbx "$u" -- ./not-executable >/dev/null 2>&1
  check "$u: a command that cannot be executed exits 126" test $? -eq 126
  sbx "$u" -- python3 -c 'import fcntl,termios,errno,sys
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"x")
except OSError as e:
    sys.exit(0 if e.errno == errno.EPERM else 1)
sys.exit(1)' </dev/null
  check "$u: TIOCSTI (typing into the terminal) is refused" test $? -eq 0
  # /tmp and /dev/shm are the run's own, fresh and empty, and go with it
  host_tmp="/tmp/cordon-host-$$-$u"
  echo host >"$host_tmp"
  chown "$u" "$host_tmp"
  mine="cordon-private-$$-$u"
  out=$(sbx "$u" -- sh -c "ls -A /tmp | wc -l; ls -A /dev/shm | wc -l; test -e '$host_tmp' && echo host-visible; echo mine >/tmp/$mine && cat /tmp/$mine && echo shm >/dev/shm/$mine && cat /dev/shm/$mine")
  check "$u: /tmp and /dev/shm start empty, hide the host's, and are writable (got: $(echo $out))" \
    test "$(echo $out)" = "0 0 mine shm"
  check "$u: the host's /tmp and /dev/shm are untouched by the run's own" \
    test "$(cat "$host_tmp")" = host -a ! -e "/tmp/$mine" -a ! -e "/dev/shm/$mine"
  out=$(sbx "$u" --private-tmp -- sh -c "test -e '$host_tmp' && echo host-visible; ls -A /tmp | wc -l")
  check "$u: --private-tmp is still accepted and means the same (got: $(echo $out))" test "$(echo $out)" = 0
  rm -f "$host_tmp"
done
finish
