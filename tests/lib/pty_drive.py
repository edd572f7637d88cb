# tests/lib/pty_drive.py STEPS CMD… — drives CMD on a terminal of its own, as a person at a keyboard.
# STEPS is a file of lines, each one step:
#   send TEXT     type TEXT (Python escapes: \t Tab, \r Enter, \x03 Ctrl-C, \x04 Ctrl-D); a Ctrl-D waits
#                 until the line editor has the terminal (non-canonical mode, seen from the master)
#   expect REGEX  wait (up to 10 s) until the output since the last expect matches REGEX; else fail.
#                 Then a pause of 0.2 s: libedit prints its prompt before it puts the terminal in raw
#                 mode, and a Ctrl-D typed into that gap is taken by the line discipline and lost.
#   sleep SECS
# Exits 0 when every expect matched and CMD ended, 1 otherwise, printing the transcript on failure.
# The last line printed is "##status=N" (CMD's exit status, minus the signal that ended it).
import os
import pty
import re
import select
import sys
import termios
import time

steps_file, cmd = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    try:
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)

seen = b""
mark = 0


def pump(timeout):
    global seen
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        return True
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        return False
    if not chunk:
        return False
    seen += chunk
    return True


def fail(why):
    sys.stdout.write("transcript:\n" + seen.decode(errors="replace") + "\nFAIL: " + why + "\n")
    try:  # a REPL stuck in a loop must not outlive the test
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    except OSError:
        pass
    sys.exit(1)


for raw in open(steps_file, encoding="utf-8").read().splitlines():
    if not raw.strip() or raw.startswith("#"):
        continue
    verb, _, arg = raw.partition(" ")
    if verb == "send":
        data = arg.encode().decode("unicode_escape").encode("latin-1")
        end = time.monotonic() + 5
        while b"\x04" in data and termios.tcgetattr(fd)[3] & termios.ICANON and time.monotonic() < end:
            pump(0.05)
        os.write(fd, data)
    elif verb == "sleep":
        end = time.monotonic() + float(arg)
        while time.monotonic() < end and pump(end - time.monotonic()):
            pass
    elif verb == "expect":
        pattern = re.compile(arg.encode(), re.S)
        deadline = time.monotonic() + 10
        while not pattern.search(seen, mark):
            if time.monotonic() > deadline or not pump(deadline - time.monotonic()):
                if not pattern.search(seen, mark):
                    fail("no match for " + arg)
        mark = pattern.search(seen, mark).end()
        end = time.monotonic() + 0.2
        while time.monotonic() < end and pump(end - time.monotonic()):
            pass
    else:
        fail("unknown step " + raw)

deadline = time.monotonic() + 10
done, status = os.waitpid(pid, os.WNOHANG)
while not done and time.monotonic() < deadline:
    if not pump(0.2):
        time.sleep(0.05)
    done, status = os.waitpid(pid, os.WNOHANG)
if not done:
    fail("CMD did not end")
while pump(0.1):
    pass
code = os.waitstatus_to_exitcode(status)
print("##status=%d" % code)
sys.exit(0)
