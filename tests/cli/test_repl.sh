#!/usr/bin/env bash
# tests/cli/test_repl.sh — `cordon repl` on piped input: expressions print, statements run, unfinished
# chunks continue, errors are reported and the session goes on (a raising __tostring too), a chunk
# left unfinished at end of input exits 1; large values are summarised; the `:` commands.
# The terminal-only parts (Tab, Ctrl-C, history) are in test_repl_terminal.sh.
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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cordon-repl.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
contains() { case "$2" in *"$3"*) pass=$((pass + 1)) ;; *) fail=$((fail + 1)); echo "FAIL: $1: [$3] not in [$2]" >&2 ;; esac; }

out=$(printf 'setmetatable({}, {__tostring = function() error("no words") end})\n=1\n' | "$CORDON" repl 2>&1)
check "a raising __tostring is an error, and the session goes on" "$?:$out" $'0:error: cannot show the value: repl:1: no words\n1'

bad='setmetatable({}, {__tostring = function() error("no words") end})'
out=$(printf '%s\n:all\nerror(%s)\n=2\n' "$bad" "$bad" | "$CORDON" repl 2>&1)
check "neither :all nor an error value with a raising __tostring ends the session" "$?:$out" \
  $'0:error: cannot show the value: repl:1: no words\nerror: repl:1: no words\nerror: (an error value whose __tostring raises)\n2'

out=$(printf '=1\nfor i = 1, 2 do\n' | "$CORDON" repl 2>"$tmp/err")
check "an unfinished chunk at end of input exits 1" "$?:$out" "1:1"
contains "and says so" "$(cat "$tmp/err")" "unfinished chunk at end of input"

out=$(printf 'cordon\n' | "$CORDON" repl)
for m in path profile boundary sbpl manager linux sys legacy session yaml sandbox json compile_legacy select assemble explain; do
  contains "cordon shows $m before anything loaded it" "$out" "  $m = "
done

printf 'a = cordon.assemble{workdir = "/w", platform = "darwin"}\na\n:all\n' | "$CORDON" repl >"$tmp/big"
summary=$(sed -n '1,/^-- .* in full: :all$/p' "$tmp/big")
lines=$(printf '%s\n' "$summary" | wc -l)
[ "$lines" -le 60 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: an assembled policy prints a summary ($lines lines)" >&2; }
contains "the summary names the text's size" "$summary" 'text = ";; Source: 00-base.sb'
[ "$(wc -l <"$tmp/big")" -gt 1000 ] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: :all prints the whole value" >&2; }

out=$(printf ':help\n' | "$CORDON" repl)
contains ":help lists the commands" "$out" ":check OP TARGET"
contains ":help lists functions, one a line" "$out" $'\n  cordon.path.normalize  normalize(p)'
out=$(printf 'p = cordon.sbpl.parse("(version 1)", "x")\n:help p:decide\n:help nothing_like_it\n' | "$CORDON" repl)
check ":help NAME, through a value" "$(printf '%s\n' "$out" | cut -c1-24)" $'Policy:decide  p:decide(\nno help for \'nothing_lik'

printf 'loaded = 6 * 7\nreturn "from the file"\n' >"$tmp/script.lua"
out=$(printf ':load %s\n=loaded\n:load /nonexistent.lua\n=1\n' "$tmp/script.lua" | "$CORDON" repl)
check ":load runs a file in the session" "$(printf '%s\n' "$out" | cut -c1-30)" $'"from the file"\n42\nerror: cannot open /nonexisten\n1'

out=$(printf ':policy --workdir /w --platform darwin -- claude\n:check file-write-data /w/.git/hooks/pre-commit\n:check file-write-data /w/src/main.c\n:check file-read-data rel\n=policy.platform\n:policy --bogus\n' | "$CORDON" repl --no-history)
contains ":policy assembles into the global policy" "$out" "policy = darwin policy, profile workspace-write"
check ":check decides against it" "$(printf '%s\n' "$out" | grep -x 'allow\|deny' | tr '\n' ' ')" "deny allow "
contains ":check refuses a relative target" "$out" "error: TARGET of file-read-data must be an absolute path"
contains "policy is a value of the session" "$out" $'\n"darwin"\n'
contains ":policy reports a bad option" "$out" "error: unknown option --bogus"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
