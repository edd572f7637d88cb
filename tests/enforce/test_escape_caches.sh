#!/usr/bin/env bash
# tests/enforce/test_escape_caches.sh — issue 9, class 6: caches the host later executes from. corepack
# runs any "installed" package manager it finds in its cache without an integrity check; Go's build and
# module caches, pip's wheels and cargo's registry sources are run or linked by the host's next build.
# Inside `cordon run` (default tree, workspace-write, as root and as an unprivileged user) a payload is
# planted wherever each tool would look inside (its environment as the run sets it) and in the host's
# default locations. Afterwards the host's caches are byte-identical, the host's own `corepack pnpm`
# runs nothing planted (while the same plant made on the host does: the control), whatever the run
# could write went to the sandbox's own caches under ~/.local/state/cordon, those persist from one run
# to the next, and `cordon explain --platform linux` lists them.
. "$(dirname "$0")/lib.sh"

PNPM=9.0.0  # a version nobody has installed: corepack finds only the planted one
# plant_corepack DIR MARKER: an "installed" pnpm in corepack's cache DIR that creates MARKER when run
plant_corepack() {
  local d="$1/v1/pnpm/$PNPM"
  mkdir -p "$d" &&
    printf '{"locator":{"name":"pnpm","reference":"%s"},"hash":"sha512.0","bin":{"pnpm":"evil.js"}}\n' "$PNPM" >"$d/.corepack" &&
    printf 'require("fs").writeFileSync(%s, "ran")\n' "\"$2\"" >"$d/evil.js"
}
corepack_run() {  # corepack_run USER: the host's own `corepack pnpm`, offline, bounded
  host "$1" env COREPACK_ENABLE_NETWORK=0 COREPACK_ENABLE_DOWNLOAD_PROMPT=0 timeout 20 corepack "pnpm@$PNPM" --version >/dev/null 2>&1
}

# Inside: each cache where the tool would find it inside (printed as "name dir"), then a payload there
# and in the host's default place. $1 = the marker, $2 = the plant_corepack function's text.
ATTACK='M=$1; eval "$2"
c=${XDG_CACHE_HOME:-$HOME/.cache}
gopath=${GOPATH:-$HOME/go}; gopath=${gopath%%:*}
for it in "corepack ${COREPACK_HOME:-$c/node/corepack}" "gocache ${GOCACHE:-$c/go-build}" \
          "gomodcache ${GOMODCACHE:-$gopath/pkg/mod}" "pip ${PIP_CACHE_DIR:-$c/pip}" \
          "cargo ${CARGO_HOME:-$HOME/.cargo}/registry"; do
  set -- $it
  host_default=$(eval echo "\$HOST_$1")
  dirs=$2; [ "$2" = "$host_default" ] || dirs="$2 $host_default"  # (the test paths hold no spaces)
  for d in $dirs; do
    case $1 in
      corepack) plant_corepack "$d" "$M" ;;
      gocache) mkdir -p "$d/00" && echo evil >"$d/00/0000000000000000000000000000000000000000000000000000000000000000-a" ;;
      gomodcache) mkdir -p "$d/cache/download/example.com/evil/@v" && echo evil >"$d/cache/download/example.com/evil/@v/v1.0.0.zip" ;;
      pip) mkdir -p "$d/wheels/ev/il" && echo evil >"$d/wheels/ev/il/evil-1.0-py3-none-any.whl" ;;
      cargo) mkdir -p "$d/src/index.crates.io-6f17d22bba15001f/evil-1.0.0" &&
               echo "fn main() {}" >"$d/src/index.crates.io-6f17d22bba15001f/evil-1.0.0/build.rs" ;;
    esac 2>/dev/null && [ "$d" = "$2" ] && echo "wrote $1 $d"
  done
  echo "uses $1 $2"
done'

host_caches() {  # the host's default caches of the test HOME
  printf '%s\n' "corepack $H/.cache/node/corepack" "gocache $H/.cache/go-build" "gomodcache $H/go/pkg/mod" \
    "pip $H/.cache/pip" "cargo $H/.cargo/registry"
}

for u in $USERS; do
  for home in populated fresh; do
    new_case "$u"
    if [ "$home" = populated ]; then  # the host has used every tool: its caches exist and hold something
      mkdir -p "$H/.cache/node/corepack/v1/pnpm/8.15.0" "$H/.cache/go-build/00" "$H/go/pkg/mod/cache/download" \
        "$H/.cache/pip/wheels" "$H/.cargo/registry/src/index.crates.io-6f17d22bba15001f/real-1.0.0"
      echo '{}' >"$H/.cache/node/corepack/v1/pnpm/8.15.0/.corepack"
      echo real >"$H/.cache/go-build/00/real-a"
      echo "fn main() {}" >"$H/.cargo/registry/src/index.crates.io-6f17d22bba15001f/real-1.0.0/build.rs"
      chown -R "$u" "$H"
    fi
    declare -A before=()
    envs=()
    while read -r name dir; do
      before[$name]=$(tree_state "$dir")
      envs+=("HOST_$name=$dir")
    done < <(host_caches)
    out=$(sbx "$u" -- env "${envs[@]}" sh -c "$ATTACK" sh "$O/marker" "PNPM=$PNPM; $(declare -f plant_corepack)" 2>&1)
    while read -r name dir; do
      expect_eq "$u ($home HOME): the host's $name cache is byte-identical afterwards" "$(tree_state "$dir")" "${before[$name]}"
    done < <(host_caches)
    if command -v corepack >/dev/null; then
      corepack_run "$u"
      check "$u ($home HOME): the host's own corepack pnpm runs nothing planted inside" test ! -e "$O/marker"
    fi

    # where the run's writes went: only into its own caches, which explain lists
    state_dir="$H/.local/state/cordon/"
    explained=$(as "$u" "$W" "$H" "$CORDON" explain --platform linux --workdir "$W" 2>&1)
    while read -r _ name dir; do
      case $dir in "$state_dir"*) ok "$u ($home HOME): $name inside writes the sandbox's own cache ($dir)" ;;
                   *) bad "$u ($home HOME): $name inside wrote $dir, not a cache under $state_dir" ;; esac
    done < <(grep '^wrote ' <<<"$out")
    # (cargo has no variable for its registry alone: moving CARGO_HOME, or keeping the host's registry
    # read-only, are both sound, so only where its writes went is checked, above)
    while read -r _ name dir; do
      [ "$name" = cargo ] && continue
      case $dir in "$state_dir"*) check "$u ($home HOME): cordon explain lists the sandbox's $name cache" \
                     grep -qF -e "$dir" -e "~${dir#"$H"}" <<<"$explained" ;;
                   *) bad "$u ($home HOME): inside, $name uses $dir, not a sandbox cache under $state_dir" ;; esac
    done < <(grep '^uses ' <<<"$out")
    cp_dir=$(sed -n 's/^wrote corepack //p' <<<"$out")
    if [ -n "$cp_dir" ]; then
      out=$(sbx "$u" -- sh -c 'test -f "$1/v1/pnpm/'"$PNPM"'/.corepack" && echo kept' sh "$cp_dir")
      expect_eq "$u ($home HOME): the sandbox's caches persist from one run to the next" "$out" kept
    fi
    unset before
  done
done

# A run with no sandbox (danger-full-access) must not use the sandboxes' caches: a read-only run plants
# pnpm in its COREPACK_HOME, and a later unsandboxed `corepack pnpm` used to run it outside.
for u in $USERS; do
  new_case "$u"
  planted=$(sbx "$u" --profile read-only --network restricted -- sh -c \
    "PNPM=$PNPM; $(declare -f plant_corepack); plant_corepack \"\$COREPACK_HOME\" '$O/marker' && echo \"\$COREPACK_HOME\"" 2>&1)
  case $planted in "$H/.local/state/cordon/caches/"*) ok "$u: the read-only run planted in its own cache" ;;
                   *) bad "$u: the premise: the read-only run could not plant in its cache: $planted" ;; esac
  env_full=$(sbx "$u" --profile danger-full-access -- env 2>&1)
  check "$u: a danger-full-access run gets no sandbox cache variable" \
    test -z "$(grep -F "$H/.local/state/cordon/caches" <<<"$env_full")"
  check "$u: explain says an unsandboxed run has no sandbox caches" \
    grep -q "sandbox caches: none" <<<"$(as "$u" "$W" "$H" "$CORDON" explain --platform linux --workdir "$W" \
      --profile danger-full-access 2>&1)"
  if command -v corepack >/dev/null; then
    sbx "$u" --profile danger-full-access -- env COREPACK_ENABLE_NETWORK=0 COREPACK_ENABLE_DOWNLOAD_PROMPT=0 \
      timeout 20 corepack "pnpm@$PNPM" --version >/dev/null 2>&1
    check "$u: the unsandboxed corepack pnpm runs nothing a sandbox planted" test ! -e "$O/marker"
  fi
done

# Shell history is per workdir (finding 3): what a run of workdir A writes to its HISTFILE is not read
# by a run of workdir B, through B's HISTFILE or by listing the history directory.
for u in $USERS; do
  new_case "$u"
  host "$u" mkdir -p "$CASE/wa" "$CASE/wb"
  as "$u" "$CASE/wa" "$H" "$CORDON" run --workdir "$CASE/wa" -- sh -c 'echo "export TOKEN=histA$$" >>"$HISTFILE"; echo "$HISTFILE"' >"$O/ha" 2>/dev/null
  got=$(as "$u" "$CASE/wb" "$H" "$CORDON" run --workdir "$CASE/wb" -- sh -c \
    'echo "$HISTFILE"; cat "$HISTFILE"; cat "${HISTFILE%/*/*}"/*/* "${HISTFILE%/*/*}"/*' 2>/dev/null)
  check "$u: workdir B's run reads nothing workdir A typed" test -z "$(grep -F histA <<<"$got")"
  check "$u: the two workdirs get two histories" test "$(head -1 "$O/ha")" != "$(head -1 <<<"$got")"
  leaked=$(host "$u" sh -c "grep -rlF histA '$H/.local/state/cordon/caches' 2>/dev/null | grep -vF '$(dirname "$(head -1 "$O/ha")")/' ")
  check "$u: on the host, A's history is nowhere but in A's own directory" test -z "$leaked"
done

# control: the same plant in the host's own corepack cache is run by the host's next `corepack pnpm`
command -v corepack >/dev/null || { echo "note: no corepack: only the cache listings are checked"; finish; exit; }
u=${USERS%% *}
new_case "$u"
host "$u" bash -c "PNPM=$PNPM; $(declare -f plant_corepack); plant_corepack '$H/.cache/node/corepack' '$O/marker'"
corepack_run "$u"
check "control: corepack runs a pnpm planted in its cache on the host" test -e "$O/marker"
finish
