#!/usr/bin/env bash
# tests/cli/test_protection_agree.sh — one protection set (issue 12, item 2; issue 11, item 4). For every
# protected name, protected path and secret, in three layouts (HOME apart from the workdir, workdir =
# HOME, HOME under the writable /tmp), three answers agree: the Seatbelt policy (`cordon check --platform
# darwin`), the Linux plan (`cordon check --platform linux`, git's layout rules included) and the session
# assessment (`cordon session request` previews a conflict). The table comes from the lists' owner
# (cordon.standard) and from the tree's secrets fragment, so a name added there is tested here.
# Control rows show the test can fail: a plain workdir file is a noop the run allows, a path outside is
# an apply the run allows once settled.
# needs: linux (check --platform linux decides git's layout rules with the Linux backend's gate)
set -u
cordon=${CORDON:?CORDON must point at the cordon binary}
src=${CORDON_SOURCE_DIR:?}
# Serialized with the enforcement tests (tests/enforce/lib.sh): an entry made or removed in /var/tmp
# while one of them runs changes the listing of the workdir's ancestors, and its run-cache hit misses.
exec 9>>/var/tmp/cordon-enforce.lock
flock 9
root=$(mktemp -d /var/tmp/cordon-agree.XXXXXX)
tmproot=$(mktemp -d /tmp/cordon-agree.XXXXXX)
trap 'rm -rf "$root" "$tmproot"' EXIT
export XDG_CONFIG_HOME="$root/config" XDG_STATE_HOME="$root/xdg-state"
unset TMPDIR CORDON_STATE_DIR
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# The rows: "where what" with where one of root|name|home|secret-home|secret-abs, from the owners.
table=$("$cordon" lua /dev/stdin <<'LUA'
local std = require "cordon.standard"
-- "root KIND REL PLATFORM": an entry for one platform is that platform's rule (on Linux the gate's git
-- layout rules keep hooks and config instead, and refuse a repository a planted commondir assembles)
for _, e in ipairs(std.in_roots) do
  if e[1] ~= "regex" then print("root " .. e[1] .. " " .. e[2] .. " " .. (e.platform or "both")) end
end
-- .git whole is no row: an assembled run lets git write its objects and keeps its hooks and config
-- (the in_roots rows), so only the session's own refusal covers it
for _, n in ipairs(std.names) do if n ~= ".git" then print("name " .. n) end end
for _, e in ipairs(std.in_home) do print("home " .. e[2]) end
LUA
) || { echo "FAIL: cannot read the lists: $table"; exit 1; }
secrets=$(sed -n 's/^ *(home-\(literal\|subpath\) "\/\([^"]*\)").*/secret-home \2/p; s/^ *(\(literal\|subpath\) "\(\/[^"]*\)").*/secret-abs \2/p' \
  "$src/profiles/50-integrations-core/secrets-default-deny.sb")
[ "$(grep -c . <<<"$table")" -ge 20 ] && ok || bad "the protected lists are short: $table"
[ "$(grep -c . <<<"$secrets")" -ge 44 ] && ok || bad "the tree's secrets are short: $secrets"

# field NAME: the string value of NAME in the JSON on stdin (sed: python's start-up, 600 times, is minutes)
field() { sed -n "s/.*\"$1\": *\"\([^\"]*\)\".*/\1/p" | head -1; }
# The darwin target sees /var, /tmp and /etc through /private (as a Mac's kernel names them).
on_darwin() { case $1 in /var/*|/tmp/*|/etc/*) echo "/private$1" ;; *) echo "$1" ;; esac; }

# layout NAME HOME WORKDIR: every row, on both platforms and in the assessment
layout() {
  local name=$1 home=$2 work=$3 state="$root/state-$1"
  export HOME=$home
  mkdir -p "$home" "$work/src" "$state"
  local id
  git -C "$work" init -q || { bad "$name: git init"; return; }  # git's layout rules apply to a repository
  id=$("$cordon" session new --mode ask --workdir "$work" --state-dir "$state" --json | field id)
  [ ${#id} -eq 16 ] || { bad "$name: session new"; return; }
  # rows as "OP PATH": writes on every protected path (the name also one level down), reads of secrets
  local rows=() only=()
  while read -r where what; do
    case $where in
      root)
        set -- $what
        [ "$1" = subpath ] && what="$2/x" || what=$2
        rows+=("file-write-data $work/$what")
        only[${#rows[@]}]=$3 ;;
      name) rows+=("file-write-data $work/$what" "file-write-data $work/src/$what/x") ;;
      home) rows+=("file-write-data $home/$what") ;;
      secret-home) rows+=("file-read-data $home/$what" "file-write-data $home/$what") ;;
      secret-abs) rows+=("file-read-data $what" "file-write-data $what") ;;
    esac
  done <<<"$table
$secrets"
  printf '%s\n' "${rows[@]}" >"$root/rows"
  local r
  for r in "${rows[@]}"; do echo "${r%% *} $(on_darwin "${r#* }")"; done >"$root/rows-darwin"
  local darwin linux
  darwin=$("$cordon" check --no-config --session "$id" --state-dir "$state" --platform darwin --batch "$root/rows-darwin" --json) ||
    true
  linux=$("$cordon" check --no-config --session "$id" --state-dir "$state" --platform linux --batch "$root/rows" --json) ||
    true
  local i=0 row op path flag preview d l
  while read -r dline && read -r lline <&3; do
    row=${rows[$i]}
    i=$((i + 1))
    op=${row%% *} path=${row#* }
    d=$(field decision <<<"$dline")
    l=$(field decision <<<"$lline")
    [ "$op" = file-read-data ] && flag=--read || flag=--write
    preview=$("$cordon" session request "$id" $flag "$path" --exact --justification agree --state-dir "$state" --json |
      field preview)
    case ${only[$i]:-both} in darwin) l=deny ;; linux) d=deny ;; esac  # the other platform has no such rule
    if [ "$d/$l/$preview" = deny/deny/conflict ]; then ok
    else bad "$name: $op $path: darwin $d, linux $l, assessed $preview (want deny, deny, conflict)"; fi
  done <<<"$darwin" 3<<<"$linux"
  [ "$i" -eq "${#rows[@]}" ] && ok || bad "$name: $i answers for ${#rows[@]} rows"

  # Controls: a plain file of the workdir is already writable; a path outside becomes writable on approval.
  local plain="$work/src/main.c" out="$root/outside-$name/f"
  preview=$("$cordon" session request "$id" --write "$plain" --exact --justification agree --state-dir "$state" --json |
    field preview)
  d=$("$cordon" check --no-config --session "$id" --state-dir "$state" --platform darwin file-write-data "$(on_darwin "$plain")" | head -1)
  l=$("$cordon" check --no-config --session "$id" --state-dir "$state" --platform linux file-write-data "$plain" | head -1)
  [ "$d/$l/$preview" = allow/allow/noop ] && ok || bad "$name: control $plain: darwin $d, linux $l, assessed $preview"
  local json req
  json=$("$cordon" session request "$id" --write "$out" --exact --justification agree --state-dir "$state" --json)
  preview=$(field preview <<<"$json")
  req=$(sed -n 's/.*"request": *\([0-9]*\).*/\1/p' <<<"$json")
  [ "$preview" = apply ] && ok || bad "$name: control $out assessed $preview"
  "$cordon" session settle "$id" "$req" --allow --state-dir "$state" >/dev/null || bad "$name: settle"
  d=$("$cordon" check --no-config --session "$id" --state-dir "$state" --platform darwin file-write-data "$(on_darwin "$out")" | head -1)
  l=$("$cordon" check --no-config --session "$id" --state-dir "$state" --platform linux file-write-data "$out" | head -1)
  [ "$d/$l" = allow/allow ] && ok || bad "$name: control $out after approval: darwin $d, linux $l"
}

# own NAME HOME WORKDIR: cordon's own config, state and cache directories (wherever XDG_*, --state-dir
# and CORDON_STATE_DIR put them) are the final denies of every policy: run denies a write there, and
# the assessment says conflict, naming them. The submodules' hooks and config, and a bare repository's
# own, are expressed by patterns a profile cannot hold: the same holds there.
own() {
  local name=$1 home=$2 work=$3 state="$root/custom-state-$1" env_state="$root/env-state-$1"
  export HOME=$home
  mkdir -p "$home" "$work" "$state" "$env_state"
  local id p d l preview json
  id=$(CORDON_STATE_DIR=$env_state "$cordon" session new --mode ask --workdir "$work" --state-dir "$state" --json | field id)
  [ ${#id} -eq 16 ] || { bad "own $name: session new"; return; }
  for p in "$home/.local/state/cordon/x" "$home/.config/cordon/config.yaml" "$home/.cache/cordon/plan" \
           "$XDG_CONFIG_HOME/cordon/trust" "$XDG_STATE_HOME/cordon/sessions.db" "$state/sessions.db" "$env_state/x" \
           "$work/.git/modules/sub/hooks/pre-commit" "$work/.git/modules/a/modules/b/config"; do
    mkdir -p "$(dirname "$p")"
    d=$(CORDON_STATE_DIR=$env_state "$cordon" check --no-config --session "$id" --state-dir "$state" --platform darwin \
      file-write-data "$(on_darwin "$p")" | head -1)
    json=$(CORDON_STATE_DIR=$env_state "$cordon" session request "$id" --write "$p" --exact --justification own \
      --state-dir "$state" --json)
    preview=$(field preview <<<"$json")
    [ "$d/$preview" = deny/conflict ] && ok || bad "own $name: write $p: darwin $d, assessed $preview (want deny, conflict)"
    case $p in */.git/*) ;; *) grep -q "read-only" <<<"$json" && ok || bad "own $name: the reason names nothing: $json" ;; esac
  done
}
own apart "$root/home-own" "$root/work-own"
own home-is-workdir "$root/both-own" "$root/both-own"
# a bare repository as the workdir: its hooks, config and submodules' hooks, as run keeps them on a Mac
bare="$root/bare.git"
git init -q --bare "$bare"
id=$("$cordon" session new --mode ask --workdir "$bare" --state-dir "$root/state-bare" --json | field id)
# (the darwin check cannot be asked here: its /private/var path does not exist off a Mac, so the repository
# is not recognised; protect.lua places the entries for a bare root, which the assessment now reads)
for p in "$bare/hooks/pre-commit" "$bare/config" "$bare/modules/sub/hooks/post-checkout"; do
  d=deny
  preview=$("$cordon" session request "$id" --write "$p" --exact --justification bare --state-dir "$root/state-bare" --json |
    field preview)
  [ "$d/$preview" = deny/conflict ] && ok || bad "bare: write $p: darwin $d, assessed $preview (want deny, conflict)"
done
preview=$("$cordon" session request "$id" --write "$bare/objects/pack/x" --exact --justification bare --state-dir "$root/state-bare" \
  --json | field preview)
[ "$preview" = noop ] && ok || bad "bare: the control (objects) is assessed $preview"

layout apart "$root/home" "$root/work"
layout home-is-workdir "$root/both" "$root/both"
layout home-under-tmp "$tmproot/home" "$root/work3"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
