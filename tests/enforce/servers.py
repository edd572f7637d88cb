# tests/enforce/servers.py — servers for the network and socket tests, run outside the sandbox.
# usage: python3 servers.py KIND ADDRESS LOG
#   tcp, udp        a loopback server on a free port (ADDRESS ignored)
#   unix, abstract  a stream unix server at the path ADDRESS, or at the abstract name ADDRESS
#   dgram           a datagram unix server at the path ADDRESS (a syslog/journald stand-in)
#   exec            a stream unix server at ADDRESS (a path, or @name for an abstract one) that runs the
#                   first line each client sends with `sh -c`: a stand-in for the D-Bus session bus,
#                   `systemd --user`, an editor's or a dev server's control socket, which all run what
#                   they are asked to, outside any sandbox
# Prints "ready PORT" once listening; appends one line to LOG per connection or datagram received.
import os
import socket
import subprocess
import sys

kind, address, log = sys.argv[1], sys.argv[2], sys.argv[3]
if kind == "tcp":
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
elif kind == "udp":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
elif kind == "dgram":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(address)
    os.chmod(address, 0o777)
elif kind == "unix" or (kind == "exec" and not address.startswith("@")):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(address)
    # the owner's only, like the real servers (tmux, D-Bus, systemd): a test user's own sandbox is the
    # client that must not get through
    os.chmod(address, 0o700 if kind == "exec" else 0o777)
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0" + address.lstrip("@"))
if kind not in ("udp", "dgram"):
    s.listen(8)
port = s.getsockname()[1] if kind in ("tcp", "udp") else 0
print("ready", port, flush=True)
while True:
    if kind in ("udp", "dgram"):
        data, _ = s.recvfrom(512)
    else:
        c, _ = s.accept()
        if kind == "exec":
            c.settimeout(5)
            line = b""
            try:
                while not line.endswith(b"\n"):
                    chunk = c.recv(512)
                    if not chunk:
                        break
                    line += chunk
            except OSError:
                pass
            if line.strip():
                subprocess.run(["sh", "-c", line.decode(errors="replace")], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        c.close()
    with open(log, "a") as f:
        f.write("hit\n")
