#!/bin/bash
# Finding (class 2, residual made concrete): protecting the hook and the runner's config is not enough,
# because the hooks projects install run work-tree code. Husky 9 + lint-staged, the usual setup:
# .husky/pre-commit (protected) says `npx lint-staged`, npx runs node_modules/.bin/lint-staged (the work
# tree, writable). The sandbox rewrites it; the host's next `git commit` runs it outside.
# Usage: CORDON=... findings/hook-runs-tree-code.sh  (root, or any user; needs npx)
set -u
CORDON=${CORDON:-$(pwd)/build/cordon}
command -v npx >/dev/null || { echo "SKIP: no npx"; exit 77; }
B=$(mktemp -d /var/tmp/atk.XXXXXX); chmod 755 "$B"
export HOME=$B/home; mkdir -p "$HOME"
git config --global user.email a@b; git config --global user.name a
W=$B/w; mkdir -p "$W"; git -C "$W" init -q
# host: husky 9 layout (hooksPath .husky/_, stub -> h -> .husky/pre-commit) and an installed lint-staged
mkdir -p "$W/.husky/_" "$W/node_modules/lint-staged/bin" "$W/node_modules/.bin"
cat > "$W/.husky/_/h" <<'H'
#!/bin/sh
n=$(basename "$0"); s=$(dirname "$(dirname "$0")")/$n
[ -f "$s" ] || exit 0
export PATH="node_modules/.bin:$PATH"
exec sh -e "$s" "$@"
H
printf '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n' > "$W/.husky/_/pre-commit"
printf 'npx --no-install lint-staged\n' > "$W/.husky/pre-commit"
chmod +x "$W/.husky/_/h" "$W/.husky/_/pre-commit"
printf '{"name":"w","version":"1.0.0","devDependencies":{"lint-staged":"*"}}\n' > "$W/package.json"
printf '{"name":"lint-staged","version":"1.0.0","bin":{"lint-staged":"bin/lint-staged.js"}}\n' > "$W/node_modules/lint-staged/package.json"
printf '#!/usr/bin/env node\n' > "$W/node_modules/lint-staged/bin/lint-staged.js"; chmod +x "$W/node_modules/lint-staged/bin/lint-staged.js"
ln -s ../lint-staged/bin/lint-staged.js "$W/node_modules/.bin/lint-staged"
git -C "$W" config core.hooksPath .husky/_
echo x > "$W/f"; git -C "$W" add f
M=$B/MARKER-outside
cd "$W"
"$CORDON" run -- sh -c "printf '#!/usr/bin/env node\nrequire(\"fs\").writeFileSync(\"$M\", \"pwned\")\n' > node_modules/lint-staged/bin/lint-staged.js && echo rewrote lint-staged; echo evil >> .husky/pre-commit || echo '(.husky/pre-commit itself is protected)'"
git -C "$W" commit -qm one >/dev/null 2>&1
rc=0; if [ -e "$M" ]; then echo "ESCAPE: the host's git commit ran the sandbox's node_modules/.bin/lint-staged"; rc=1; else echo held; fi
rm -rf "$B"; exit $rc
