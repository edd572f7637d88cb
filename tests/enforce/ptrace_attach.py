# tests/enforce/ptrace_attach.py PID — exits 0 when PTRACE_ATTACH to PID succeeds (then detaches), 1 if not.
import ctypes
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH, PTRACE_DETACH = 16, 17
pid = int(sys.argv[1])
if libc.ptrace(PTRACE_ATTACH, pid, None, None) != 0:
    print("ptrace:", os.strerror(ctypes.get_errno()), file=sys.stderr)
    sys.exit(1)
os.waitpid(pid, 0)
libc.ptrace(PTRACE_DETACH, pid, None, None)
sys.exit(0)
