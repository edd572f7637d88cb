#!/usr/bin/env bash
# tests/cli/test_help.sh — the first thing a user types. Every command `cordon --help` lists (and every
# `cordon session` subcommand) answers --help with exit 0 and a usage line, and its help mentions every
# option its parser accepts (and lists none it refuses); an unknown option, or an option missing its value, exits 125 with a message
# naming it. The commands come from `cordon --help` and the options from the commands' own spec tables
# (M.spec, or the SPECS table of subcommands), so a new command or option is covered without editing
# this file.
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
tmp=$(mktemp -d /tmp/cordon-help-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_STATE_HOME="$tmp/state" XDG_CONFIG_HOME="$tmp/config"
mkdir -p "$HOME" "$XDG_STATE_HOME" "$XDG_CONFIG_HOME"
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# Commands known to break one of these rules, each with the reason. A listed command that starts
# passing is reported too, so the list cannot outlive the bug.
declare -A known_bad=()
check_known() { # KEY CONDITION-HELD MESSAGE
  if [ -n "${known_bad[$1]:-}" ]; then
    if [ "$2" = 1 ]; then bad "'$1' now passes: remove it from known_bad"; else ok; echo "known: $1: ${known_bad[$1]}"; fi
  elif [ "$2" = 1 ]; then ok
  else bad "$3"
  fi
}

# --- the top level ------------------------------------------------------------------------------------
"$cordon" --help >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" = 0 ] && grep -q "^usage: cordon COMMAND" "$tmp/out" && [ ! -s "$tmp/err" ]; then ok
else bad "cordon --help: exit 0 and a usage line on stdout ($status)"; fi
mapfile -t commands < <(sed -n '/^commands:/,/^$/p' "$tmp/out" | awk 'NF >= 2 && $1 != "commands:" { print $1 }')
if [ "${#commands[@]}" -ge 8 ]; then ok; else bad "cordon --help lists the commands: ${commands[*]}"; fi
for c in run policy check lint; do
  if printf '%s\n' "${commands[@]}" | grep -qx "$c"; then ok; else bad "cordon --help lists '$c'"; fi
done
"$cordon" -h >"$tmp/out2" 2>/dev/null
if [ $? = 0 ] && cmp -s "$tmp/out" "$tmp/out2"; then ok; else bad "cordon -h is cordon --help"; fi
"$cordon" >/dev/null 2>"$tmp/err"
if [ $? = 125 ] && grep -q "^usage: cordon" "$tmp/err"; then ok; else bad "cordon alone: usage on stderr, exit 125"; fi
"$cordon" no-such-command >/dev/null 2>"$tmp/err"
if [ $? = 125 ] && grep -q "no-such-command" "$tmp/err"; then ok; else bad "an unknown command exits 125 naming it"; fi

# --- the spec tables ----------------------------------------------------------------------------------
# One line per accepted option: "COMMAND[ SUB]<TAB>--name<TAB>-s or -<TAB>value|flag".
cat >"$tmp/specs.lua" <<'LUA'
local function emit(label, spec)
  for _, s in ipairs(spec) do
    print(label .. "\t--" .. s[1] .. "\t" .. (s.short and ("-" .. s.short) or "-") .. "\t" .. (s.value and "value" or "flag"))
  end
  print(label .. "\t\t\t")  -- the command exists even when it takes no option
end
-- Subcommand tables are locals of the module: find them among the upvalues of its functions.
local function find_specs(f, seen)
  if seen[f] then return nil end
  seen[f] = true
  for i = 1, math.huge do
    local name, v = debug.getupvalue(f, i)
    if not name then break end
    if name == "SPECS" and type(v) == "table" then return v end
    if type(v) == "function" then
      local found = find_specs(v, seen)
      if found then return found end
    end
  end
end
for _, c in ipairs(require("cordon.cli").commands) do
  local name = c[1]
  local mod = require("cordon.cli." .. name)
  if mod.spec then emit(name, mod.spec) else print(name .. "\t\t\t") end
  local subs = type(mod.run) == "function" and find_specs(mod.run, {})
  if subs then
    local names = {}
    for sub in pairs(subs) do names[#names + 1] = sub end
    table.sort(names)
    for _, sub in ipairs(names) do emit(name .. " " .. sub, subs[sub]) end
  end
end
LUA
"$cordon" lua "$tmp/specs.lua" >"$tmp/specs" 2>"$tmp/err"
if [ $? = 0 ] && [ -s "$tmp/specs" ]; then ok; else bad "the spec tables can be read: $(cat "$tmp/err")"; fi
for c in "${commands[@]}"; do
  if cut -f1 "$tmp/specs" | grep -qx "$c"; then ok; else bad "'$c' from cordon --help is a module of cordon.cli"; fi
done
if cut -f1 "$tmp/specs" | grep -qx "session new"; then ok; else bad "the session subcommands' specs are found"; fi

# --- every command and subcommand --------------------------------------------------------------------
mapfile -t labels < <(cut -f1 "$tmp/specs" | awk '!seen[$0]++')
for label in "${labels[@]}"; do
  read -r -a words <<<"$label"
  "$cordon" "${words[@]}" --help >"$tmp/out" 2>"$tmp/err"
  status=$?
  if [ "$status" = 0 ] && [ ! -s "$tmp/err" ]; then ok; else bad "cordon $label --help exits 0 quietly ($status): $(head -3 "$tmp/err")"; fi
  if head -1 "$tmp/out" | grep -q "^usage: cordon $label\b"; then ok
  else bad "cordon $label --help starts with 'usage: cordon $label': $(head -1 "$tmp/out")"; fi

  while IFS=$'\t' read -r _ long short kind; do
    [ -n "$long" ] || continue
    if grep -q -- "$long\b" "$tmp/out"; then ok; else bad "cordon $label --help does not mention $long"; fi
    if [ "$short" != "-" ]; then
      if grep -q -- "$short, $long" "$tmp/out"; then ok; else bad "cordon $label --help does not show $short for $long"; fi
    fi
    if [ "$long" = "--help" ]; then continue; fi
    if [ "$kind" = value ]; then
      # the option as the last word: its value is missing
      "$cordon" "${words[@]}" "$long" >"$tmp/o" 2>"$tmp/e"
      status=$?
      if [ "$status" = 125 ] && grep -q -- "$long" "$tmp/e" && [ ! -s "$tmp/o" ]; then ok
      else bad "cordon $label $long (no value) exits 125 naming $long ($status): $(head -2 "$tmp/e")"; fi
    else
      "$cordon" "${words[@]}" "$long=x" >"$tmp/o" 2>"$tmp/e"
      status=$?
      if [ "$status" = 125 ] && grep -q -- "$long" "$tmp/e" && [ ! -s "$tmp/o" ]; then ok
      else bad "cordon $label $long=x (a flag given a value) exits 125 naming $long ($status): $(head -2 "$tmp/e")"; fi
    fi
  done < <(awk -F'\t' -v l="$label" '$1 == l' "$tmp/specs")

  # ... and the option list of the help names nothing the parser would refuse
  if grep -q "^options:" "$tmp/out" && awk -F'\t' -v l="$label" '$1 == l && $2 != ""' "$tmp/specs" | grep -q .; then
    while read -r opt; do
      if awk -F'\t' -v l="$label" -v o="$opt" '$1 == l && $2 == o { f = 1 } END { exit !f }' "$tmp/specs"; then ok
      else bad "cordon $label --help lists $opt, which its parser does not accept"; fi
    done < <(sed -n '/^options:/,$p' "$tmp/out" | grep -oE '^  (-[A-Za-z], )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z][a-z0-9-]*')
  fi

  # an option nobody accepts (for `cordon lua` the first word is the script, and is named too)
  "$cordon" "${words[@]}" --no-such-option >"$tmp/o" 2>"$tmp/e"
  status=$?
  held=0
  if [ "$status" = 125 ] && grep -q -- "--no-such-option" "$tmp/e"; then held=1; fi
  check_known "$label --no-such-option" "$held" "cordon $label --no-such-option exits 125 naming it ($status): $(head -2 "$tmp/e")"
done

# -h is --help wherever a spec declares it.
while IFS=$'\t' read -r label long short _; do
  [ "$long" = "--help" ] && [ "$short" = "-h" ] || continue
  read -r -a words <<<"$label"
  a=$("$cordon" "${words[@]}" -h 2>&1)
  b=$("$cordon" "${words[@]}" --help 2>&1)
  if [ "$a" = "$b" ]; then ok; else bad "cordon $label -h differs from --help"; fi
done <"$tmp/specs"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
