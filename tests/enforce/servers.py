# tests/enforce/servers.py — loopback servers for the network tests, run outside the sandbox.
# usage: python3 servers.py KIND ADDRESS LOG   (KIND: tcp, udp, unix, abstract)
# Prints "ready PORT" once listening; appends one line to LOG per connection or datagram received.
import os
import socket
import sys

kind, address, log = sys.argv[1], sys.argv[2], sys.argv[3]
if kind == "tcp":
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
elif kind == "udp":
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
elif kind == "unix":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(address)
    os.chmod(address, 0o777)
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0" + address)
if kind != "udp":
    s.listen(8)
port = s.getsockname()[1] if kind in ("tcp", "udp") else 0
print("ready", port, flush=True)
while True:
    if kind == "udp":
        data, _ = s.recvfrom(512)
    else:
        c, _ = s.accept()
        c.close()
    with open(log, "a") as f:
        f.write("hit\n")
