#!/usr/bin/env bash
# scripts/run.sh [CORDON ARGS…] — build if needed, then run cordon with the built-in default profiles.
# With no arguments it shows the main job: run a command sandboxed, and show a write outside the
# workdir being denied.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh" "$root/build"
cordon="$root/build/cordon"
if [ $# -gt 0 ]; then exec "$cordon" "$@"; fi

work=$(mktemp -d /tmp/cordon-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
echo "\$ cordon run -- sh -c 'echo hello > inside.txt && cat inside.txt'"
"$cordon" run -- sh -c 'echo hello > inside.txt && cat inside.txt'
echo
echo "\$ cordon run -- sh -c 'echo pwned > /etc/cordon-demo'   # outside the workdir: denied"
set +e
"$cordon" run -- sh -c 'echo pwned > /etc/cordon-demo'
status=$?
set -e
echo "exit status: $status; /etc/cordon-demo exists afterwards: $([ -e /etc/cordon-demo ] && echo yes || echo no)"
echo
echo "\$ cordon check --platform darwin file-read-data ~/.ssh/id_ed25519   # checked on any OS: which rule decides"
"$cordon" check --platform darwin file-read-data "$HOME/.ssh/id_ed25519" || true
