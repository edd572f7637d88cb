#!/bin/bash
# Finding (class d, variant of the shared sandbox caches): every run, danger-full-access included, gets
# HISTFILE (and PYTHON_HISTORY, PSQL_HISTORY, MYSQL_HISTFILE, NODE_REPL_HISTORY…) in the one shared
# ~/.local/state/cordon/caches/shell-history. What the user types into an interactive shell of one run
# (a full-access run, or a sandbox of another project) is read by a later read-only, network-restricted
# run of an untrusted checkout. Usage: CORDON=... findings/shared-history-secrets.sh  (root or any user)
set -u
CORDON=${CORDON:-$(pwd)/build/cordon}
B=$(mktemp -d /var/tmp/atk.XXXXXX); chmod 755 "$B"; export HOME=$B/home; mkdir -p "$HOME" "$B/mine" "$B/untrusted"
# the user's own interactive shell in a full-access run, typing a secret
cd "$B/mine"
printf 'export GITHUB_TOKEN=ghp_typed_by_the_user\nexit\n' | "$CORDON" run --profile danger-full-access -- bash -i >/dev/null 2>&1
# later: an untrusted checkout, the narrowest profile
cd "$B/untrusted"
got=$("$CORDON" run --profile read-only --network restricted -- sh -c 'cat "$HISTFILE"' 2>/dev/null)
rc=0; case $got in *ghp_typed_by_the_user*) echo "LEAK: a read-only run read the secret typed in another run: $got"; rc=1 ;; *) echo "held ($got)" ;; esac
rm -rf "$B"; exit $rc
