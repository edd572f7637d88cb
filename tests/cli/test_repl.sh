#!/usr/bin/env bash
# tests/cli/test_repl.sh — `cordon repl` on piped input: expressions print, statements run, unfinished
# chunks continue, errors are reported and the session goes on.
set -u
CORDON=${CORDON:?CORDON must name the cordon binary}
pass=0 fail=0
check() { if [ "$2" = "$3" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: got [$2] want [$3]" >&2; fi; }

out=$(printf '1 + 1\n=cordon.version\nx = {a = 1, 2}\nx\nfunction f()\n  return 42\nend\nf()\n' | "$CORDON" repl)
check "values print" "$out" $'2\n"0.1.0"\n{ 2, a = 1 }\n42'

out=$(printf 'error("boom")\n)\n=3\n' | "$CORDON" repl 2>&1)
check "errors are reported and the session goes on" "$out" $'error: repl:1: boom\nsyntax error: repl:1: unexpected symbol near \')\'\n3'

out=$(printf '=cordon.manager.requires_sandbox("read-only")\n=tostring(cordon.profile.standard("read-only")):match("^profile read%%-only")\n' | "$CORDON" repl)
check "cordon is loaded" "$out" $'true\n"profile read-only"'

"$CORDON" repl --help | grep -q "usage: cordon repl" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: help" >&2; }
"$CORDON" repl --bogus 2>/dev/null
check "an unknown option is cordon's error" "$?" 125

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
