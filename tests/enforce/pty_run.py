# tests/enforce/pty_run.py INPUT CMD… — runs CMD on a terminal of its own, the way a user runs cordon,
# while a second terminal of the same user (the "victim": another shell's pty) is open beside it.
# Every "{victim}" in CMD is replaced by the victim's /dev/pts path. INPUT is typed into CMD's terminal
# once it starts; "victim-keystrokes\n" is typed into the victim, waiting there unread.
# Prints CMD's terminal transcript, then, after it ended, three lines:
#   ##victim-out=<what arrived on the victim's screen, repr>   (anything written to the victim's pty)
#   ##victim-in=<what is still waiting to be read there, repr> (keystrokes nobody else consumed)
#   ##status=<CMD's exit code, or minus the signal>
import errno
import fcntl
import os
import pty
import select
import sys
import termios
import time

typed, cmd = sys.argv[1], sys.argv[2:]

vmaster, vslave = os.openpty()
victim = os.ttyname(vslave)
attrs = termios.tcgetattr(vslave)
attrs[3] &= ~(termios.ECHO | termios.ICANON)  # no echo: the victim's screen shows only what is written to it
termios.tcsetattr(vslave, termios.TCSANOW, attrs)
os.write(vmaster, b"victim-keystrokes\n")

argv = [a.replace("{victim}", victim) for a in cmd]
pid, fd = pty.fork()
if pid == 0:
    os.close(vmaster)
    os.close(vslave)
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)

os.write(fd, typed.encode())
transcript = b""
deadline = time.monotonic() + 30
while time.monotonic() < deadline:
    r, _, _ = select.select([fd], [], [], 1)
    if not r:
        continue
    try:
        chunk = os.read(fd, 4096)
    except OSError as e:
        if e.errno == errno.EIO:  # the terminal's last holder closed it
            break
        raise
    if not chunk:
        break
    transcript += chunk
_, status = os.waitpid(pid, 0)


def drain(f):
    fcntl.fcntl(f, fcntl.F_SETFL, fcntl.fcntl(f, fcntl.F_GETFL) | os.O_NONBLOCK)
    data = b""
    try:
        while True:
            chunk = os.read(f, 4096)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    return data


sys.stdout.write(transcript.decode(errors="replace").replace("\r", ""))
print("##victim-out=%r" % drain(vmaster).decode(errors="replace"))
print("##victim-in=%r" % drain(vslave).decode(errors="replace"))
print("##status=%d" % (os.waitstatus_to_exitcode(status)))
