#!/usr/bin/env bash
# tests/enforce/test_limits_tmpfs.sh — issue 9, class 10, the case test_hardening.sh's brief leaves out:
# the run's private /tmp and /dev/shm are tmpfs, so what the command writes there is the host's memory,
# outside any RLIMIT_AS and beyond a memory hog's reach of malloc. As root and as an unprivileged user:
# with --limit memory=64M, 128 MB written to /tmp or /dev/shm do not fit; and without a limit, the two
# together can never hold more than half the host's memory (each tmpfs defaults to half of it).
. "$(dirname "$0")/lib.sh"

mem_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
for u in $USERS; do
  new_case "$u"
  for dir in /tmp /dev/shm; do
    out=$(sbx "$u" --limit memory=64M -- sh -c "head -c 134217728 /dev/zero >$dir/big 2>/dev/null; wc -c <$dir/big" 2>&1)
    check "$u: with --limit memory=64M, 128 MB do not fit in the run's $dir (got: $out)" \
      test "${out:-0}" -lt 134217728 2>/dev/null
  done
  # (one file system counted once, should both be one)
  total=$(sbx "$u" -- sh -c 'for d in /tmp /dev/shm; do echo "$(stat -c %d "$d") $(df -k --output=size "$d" | tail -1)"; done' 2>/dev/null |
    sort -u -k1,1 | awk '{ s += $2 } END { print s + 0 }')
  check "$u: the run's /tmp and /dev/shm together hold at most half the host's memory (${total} of ${mem_kb} kB)" \
    test "$total" -gt 0 -a "$total" -le $((mem_kb / 2))
done
finish
