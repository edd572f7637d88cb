#!/usr/bin/env bash
# tests/cli/test_script.sh — `cordon script` and `cordon FILE.lua` run a trusted script as lua5.4 would:
# cordon preloaded, `arg` with its negative indices, `...`, -e chunks in order, `-` for stdin, the exit
# status from os.exit or a returned integer; errors in the script exit 1, cordon's own errors 125.
set -u
CORDON=${CORDON:?CORDON must name the cordon binary}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cordon-script.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0
check() { if [ "$2" = "$3" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: got [$2] want [$3]" >&2; fi; }

cat >show_args.lua <<'LUA'
#!/usr/bin/env cordon
local words = {}
for i = -3, #arg do words[#words + 1] = i .. "=" .. tostring(arg[i]) end
print(table.concat(words, " "))
print(select("#", ...), ...)
print(cordon.version == require("cordon").version)
return 7
LUA

out=$("$CORDON" script show_args.lua a "b c")
check "cordon script FILE: arg, ..., cordon preloaded, returned status" "$?:$out" \
  "7:-3=nil -2=$CORDON -1=script 0=show_args.lua 1=a 2=b c
2	a	b c
true"

out=$("$CORDON" show_args.lua x)
check "cordon FILE.lua is cordon script FILE.lua" "$?:$out" \
  "7:-3=nil -2=nil -1=$CORDON 0=show_args.lua 1=x
1	x
true"

out=$(printf 'print(x, arg[0], arg[-1], arg[-2], ...)\nos.exit(4)\n' | "$CORDON" script -e 'x = 1' -e 'x = x + 1' - q)
check "-e chunks run first, in order; - reads stdin" "$?:$out" "4:2	-	x = x + 1	-e	q"

out=$("$CORDON" script -e 'print(arg[0], arg[1], arg[2], arg[3])')
check "-e alone: arg[0] is the program, as in lua5.4" "$?:$out" "0:$CORDON	script	-e	print(arg[0], arg[1], arg[2], arg[3])"

"$CORDON" script -e 'os.exit(false)'; check "os.exit(false)" "$?" 1
"$CORDON" script -e 'os.exit(true)'; check "os.exit(true)" "$?" 0
"$CORDON" script -e 'error("boom")' 2>err; check "an error in the script exits 1" "$?" 1
grep -q "boom" err && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: the error is printed" >&2; }
"$CORDON" script -e 'this is not lua' 2>/dev/null; check "a chunk that does not compile exits 1" "$?" 1
"$CORDON" script -- show_args.lua >/dev/null; check "-- ends the options" "$?" 7

"$CORDON" script missing.lua 2>err; check "a missing file is cordon's error" "$?" 125
grep -q "missing.lua" err && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: the missing file is named" >&2; }
"$CORDON" script 2>/dev/null; check "nothing to run is cordon's error" "$?" 125
"$CORDON" script -e 2>/dev/null; check "-e without a chunk" "$?" 125
"$CORDON" missing.lua 2>/dev/null; check "cordon FILE.lua with no such file" "$?" 125
"$CORDON" lua -e 'error("x")' 2>/dev/null; check "cordon lua keeps exit 125 for an error" "$?" 125

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
