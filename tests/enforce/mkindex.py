# tests/enforce/mkindex.py OUT [NAME OID MODE]... — writes a version 2 git index holding exactly these entries
# (sorted), as an attacker inside would, without git's own checks on the names.
import hashlib, struct, sys
ents = sorted((a.encode(), b, int(c, 8)) for a, b, c in zip(sys.argv[2::3], sys.argv[3::3], sys.argv[4::3]))
body = b""
for name, sha, mode in ents:
    e = struct.pack(">10I", 0, 0, 0, 0, 0, 0, mode, 0, 0, 0) + bytes.fromhex(sha) + struct.pack(">H", len(name)) + name
    body += e + b"\0" * (8 - len(e) % 8)
data = b"DIRC" + struct.pack(">II", 2, len(ents)) + body
open(sys.argv[1], "wb").write(data + hashlib.sha1(data).digest())
