#!/usr/bin/env bash
# tests/enforce/test_escape_ipc.sh — System V IPC of the host (found by the seventh session's attack): a host
# process's private shared memory segment and message queue, mode 0600, must be neither readable nor
# writable from inside (a run needs an IPC namespace of its own), while a segment the command makes for
# itself works. Checked on the host: the segment's bytes and the queue's messages afterwards. (Before
# the run had an IPC namespace of its own, both were reached.)
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3 for the ctypes helper"

for u in $USERS; do
  new_case "$u"
  cat >"$W/ipc.py" <<'PY'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
BAD = (None, ctypes.c_void_p(-1).value)
op = sys.argv[1]
if op == "make":
    sid = libc.shmget(0, 4096, 0o1000 | 0o600); p = libc.shmat(sid, None, 0)
    ctypes.memmove(p, b"host-secret-token\0", 18)
    print(sid, libc.msgget(0, 0o1000 | 0o600))
elif op == "attack":
    sid, qid = int(sys.argv[2]), int(sys.argv[3])
    p = libc.shmat(sid, None, 0)
    if p not in BAD: ctypes.memmove(p, b"written-by-sandbx\0", 18)
    libc.msgsnd(qid, ctypes.create_string_buffer(b"\x01\0\0\0\0\0\0\0injected\0"), 9, 0o4000)
elif op == "own":
    sid = libc.shmget(0, 4096, 0o1000 | 0o600); p = libc.shmat(sid, None, 0)
    ok = p not in BAD and ctypes.memmove(p, b"mine\0", 5) and ctypes.string_at(p, 4) == b"mine"
    libc.shmctl(sid, 0, None); print("own-ok" if ok else "own-failed")
elif op == "check":
    sid, qid = int(sys.argv[2]), int(sys.argv[3])
    p = libc.shmat(sid, None, 0); seg = ctypes.string_at(p, 17).decode()
    buf = ctypes.create_string_buffer(64); n = libc.msgrcv(qid, buf, 56, 0, 0o4000)
    print(seg, buf.raw[8:8 + n].decode().rstrip("\0") if n > 0 else "empty")
    libc.shmctl(sid, 0, None); libc.msgctl(qid, 0, None)
PY
  chown "$u" "$W/ipc.py"
  ids=$(host "$u" python3 ipc.py make)
  sbx "$u" -- python3 ipc.py attack $ids >/dev/null 2>&1
  expect_eq "$u: the host's 0600 segment and queue are untouched by the run" \
    "$(host "$u" python3 ipc.py check $ids)" "host-secret-token empty"
  expect_eq "$u: a segment the command makes for itself works inside" "$(sbx "$u" -- python3 ipc.py own 2>/dev/null)" "own-ok"
  # control: the same attack from a host process of the same user reaches the segment
  ids=$(host "$u" python3 ipc.py make)
  host "$u" python3 ipc.py attack $ids
  expect_eq "$u: control: from the host the attack changes both" \
    "$(host "$u" python3 ipc.py check $ids)" "written-by-sandbx injected"
done
finish
