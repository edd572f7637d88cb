#!/usr/bin/env bash
# tests/enforce/test_workloads.sh — issue 10: a developer's ordinary work under `cordon run` (default
# tree, workspace-write, as root and as an unprivileged user), each case with its expected output, most
# of them compared with what the same command prints on the host: listing /, HOME and the workdir's
# ancestors, shell completion, /proc readers (ps, top, lsof, node), df, python's multiprocessing, git init,
# the project left as the command left it, npm/pip/cargo from a fresh HOME, a workdir inside a larger
# repository or cargo workspace, a linked worktree outside the workdir, the shell's start-up files, the
# environment a toolchain needs (and no secrets), scripts in --add-dirs, and explain's git advice.
# (git submodule update --init and commits inside a submodule and a linked worktree within the workdir
# are in test_escape_git.sh's last part.)
. "$(dirname "$0")/lib.sh"

GIT="git -c user.email=t@example.com -c user.name=t"
# same "description" CMD: CMD prints the same inside the sandbox (in $W) and on the host
same() {
  local d=$1 inside outside
  shift
  inside=$(sbx "$u" -- "$@" 2>&1)
  outside=$(host "$u" "$@" 2>&1)
  [ "$inside" = "$outside" ] || { sleep 0.2; inside=$(sbx "$u" -- "$@" 2>&1); outside=$(host "$u" "$@" 2>&1); }  # a directory shared with other processes may change meanwhile
  expect_eq "$u: $d" "$inside" "$outside"
}

for u in $USERS; do
  new_case "$u"
  printf '# rc\nalias cordon_alias="echo from-bashrc"\n' >"$H/.bashrc"
  echo "secret-history-line" >"$H/.bash_history"
  mkdir -p "$H/projects" "$H/.config"
  chown -R "$u" "$H"

  # --- listings: real names everywhere on the way ---------------------------------------------------
  same "ls / lists the real names" ls -A /
  same "ls ~ lists HOME's entries" ls -A "$H"
  same "ls .. lists the workdir's parent" ls -A ..
  d=$(dirname "$W")
  while [ "$d" != / ]; do  # (/ itself is above)
    same "ls $d (an ancestor of the workdir) lists its real names" ls -A "$d"
    d=$(dirname "$d")
  done
  same "bash's completion of ~/ lists HOME's entries" bash -c 'compgen -f ~/ | sort'

  # --- /proc readers, df --------------------------------------------------------------------------------
  out=$(sbx "$u" -- sh -c 'cat /proc/self/status' | grep -E '^(Name|Pid):' | tr -s '\t ' ' ' | tr '\n' ' ')
  check "$u: a child's cat /proc/self/status works (got: $out)" grep -Eq '^Name: cat Pid: [0-9]+ $' <<<"$out"
  out=$(sbx "$u" -- sh -c 'ps aux' | awk 'NR > 1 { print $2 }' | tr '\n' ' ')
  check "$u: ps aux shows the run's processes, init, the shell and ps (got: $out)" grep -Eq '^1 2 [0-9]+ $' <<<"$out"
  out=$(sbx "$u" -- top -bn1 | grep '^Tasks:' | tr -s ' ')
  check "$u: top -bn1 works and counts the run's processes (got: $out)" grep -q '^Tasks: 2 total' <<<"$out"
  out=$(sbx "$u" -- df -P . | awk 'NR == 2 { print $2 }')
  expect_eq "$u: df works and sizes the workdir's file system as the host does" "$out" "$(df -P "$W" | awk 'NR == 2 { print $2 }')"
  if command -v lsof >/dev/null; then
    out=$(sbx "$u" -- sh -c 'lsof -p $$ 2>/dev/null' | awk '$4 == "cwd" { print $1, $NF }')
    expect_eq "$u: lsof -p \$\$ lists the shell's own descriptors" "$out" "sh $W"
  fi
  if command -v node >/dev/null; then
    out=$(sbx "$u" -- sh -c 'node -e "process.stdout.write(String(process.memoryUsage().rss > 0))"' 2>&1)
    expect_eq "$u: node's process.memoryUsage() works in a child" "$out" true
  else
    echo "note: no node: process.memoryUsage() is not tested"
  fi
  out=$(sbx "$u" -- python3 -c 'import multiprocessing as mp
from multiprocessing.synchronize import SemLock
with mp.Pool(2) as p: print(p.map(abs, [-1, -2]))
lock = mp.Lock(); lock.acquire(); lock.release(); print("semlock", isinstance(lock, SemLock))' 2>&1)
  expect_eq "$u: python's multiprocessing.Pool and SemLock work" "$out" $'[1, 2]\nsemlock True'

  # --- git init where there was no .git; its hooks and config stay protected ---------------------------
  out=$(sbx "$u" -- sh -c "mkdir fresh && cd fresh && git init -q && $GIT commit -q --allow-empty -m first && git log --format=%s
    echo 'touch evil' >.git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; git config core.hooksPath /tmp/evil; true" 2>/dev/null)
  expect_eq "$u: git init and a first commit work in a directory without .git" "$out" first
  expect_eq "$u: ... and its hooks and config cannot be written" \
    "$(find "$W/fresh/.git/hooks" -type f ! -name '*.sample'; host "$u" git -C fresh config core.hooksPath)" ""

  # --- the project on the host holds only what the command made, during the run and after -----------
  around() { ls -A "$W" "$W/.git" "$H" "$CASE"; }
  before=$(around)
  rm -f "$W/ready"
  as_exec "$u" "$W" "$H" "$CORDON" run --workdir "$W" -- sh -c 'touch made-inside && echo >ready && sleep 1.5' &
  sup=$!
  wait_for "$W/ready" 100
  during=$(around)
  wait "$sup"
  after=$(around)
  expect_eq "$u: while the run lasts the host sees no entry the command did not make" "$during" "$after"
  rm -f "$W/made-inside" "$W/ready"
  expect_eq "$u: ... and after it, less the two it made, everything is as before" "$(around)" "$before"
done

# --- a fresh HOME: package managers with no caches of their own yet -----------------------------------------
for u in $USERS; do
  new_case "$u"
  mkdir -p "$W/dep" "$W/app" "$W/pyp/src/demo" "$W/crate/src"
  echo '{"name":"dep","version":"1.0.0","main":"index.js"}' >"$W/dep/package.json"
  echo 'module.exports = "dep-ok"' >"$W/dep/index.js"
  echo '{"name":"app","version":"1.0.0","dependencies":{"dep":"file:../dep"}}' >"$W/app/package.json"
  printf '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n[project]\nname = "demo"\nversion = "0.1"\n' >"$W/pyp/pyproject.toml"
  echo 'X = 1' >"$W/pyp/src/demo/__init__.py"
  printf '[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n' >"$W/crate/Cargo.toml"
  echo 'fn main() { println!("tiny-ok"); }' >"$W/crate/src/main.rs"
  chown -R "$u" "$W"
  if command -v npm >/dev/null; then
    out=$(sbx "$u" -- sh -c 'cd app && npm install -s --offline --no-audit --no-fund --no-update-notifier >/dev/null && node -e "console.log(require(\"dep\"))"' 2>&1)
    expect_eq "$u: with a fresh HOME, npm install of a local file: dependency works" "$out" dep-ok
  else
    echo "note: no npm: the npm case is not tested"
  fi
  out=$(sbx "$u" -- sh -c 'cd pyp && python3 -m pip wheel -q --no-deps --no-build-isolation --no-index -w ../dist . >/dev/null && ls ../dist' 2>&1)
  expect_eq "$u: with a fresh HOME, pip wheel of a local package works" "$(tail -1 <<<"$out")" demo-0.1-py3-none-any.whl
  if [ -x /usr/bin/cargo ]; then
    out=$(sbx "$u" -- sh -c 'cd crate && cargo build -q --offline && ./target/debug/tiny' 2>&1)
    expect_eq "$u: with a fresh HOME, cargo build --offline of a tiny crate works" "$out" tiny-ok
  else
    echo "note: no /usr/bin/cargo (Debian's cargo package): cargo cases not tested"
  fi
  if command -v go >/dev/null; then
    mkdir -p "$W/gomod" && printf 'module example.com/tiny\n\ngo 1.19\n' >"$W/gomod/go.mod" &&
      printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("go-ok") }\n' >"$W/gomod/main.go" && chown -R "$u" "$W/gomod"
    out=$(sbx "$u" -- sh -c 'cd gomod && go build -o tiny . && ./tiny' 2>&1)
    expect_eq "$u: with a fresh HOME, go build works" "$out" go-ok
  else
    echo "note: no go: the go case is not tested"
  fi
done

# --- where the workdir sits: inside a larger repository, a cargo workspace; a worktree beside it -----------
for u in $USERS; do
  new_case "$u"
  mono="$CASE/mono"
  mkdir -p "$mono/pkg/app" && echo app >"$mono/pkg/app/README" && git init -q "$mono" && git -C "$mono" add -A &&
    $GIT -C "$mono" commit -q -m mono-init
  chown -R "$u" "$mono"
  out=$(as "$u" "$mono/pkg/app" "$H" "$CORDON" run --workdir "$mono/pkg/app" -- sh -c 'git status --porcelain; git log -1 --format=%s; git rev-parse --show-toplevel' 2>&1)
  expect_eq "$u: a workdir inside a larger repository: git status, git log work" "$out" "mono-init"$'\n'"$mono"

  if [ -x /usr/bin/cargo ]; then
    ws="$CASE/ws"
    mkdir -p "$ws/crates/a/src"
    printf '[workspace]\nmembers = ["crates/a"]\n' >"$ws/Cargo.toml"
    printf '[package]\nname = "a"\nversion = "0.1.0"\nedition = "2021"\n' >"$ws/crates/a/Cargo.toml"
    echo 'fn main() { println!("a-ok"); }' >"$ws/crates/a/src/main.rs"
    chown -R "$u" "$ws"
    host "$u" sh -c "cd '$ws' && cargo generate-lockfile -q --offline"  # a project's Cargo.lock is checked in
    out=$(as "$u" "$ws/crates/a" "$H" "$CORDON" run --workdir "$ws/crates/a" -- cargo run -q --offline 2>&1)
    expect_eq "$u: a cargo workspace whose root is above the workdir builds" "$out" a-ok
  fi

  # git worktree add ../wt: the new worktree lies outside the workdir, so it is granted with --add-dirs
  # (it must exist for that: the user makes the empty directory first)
  mkdir "$CASE/wt" && chown "$u" "$CASE/wt"
  out=$(sbx "$u" --add-dirs "$CASE/wt" -- sh -c "git worktree add -q ../wt -b side && cd ../wt && echo w >w.txt && git add w.txt && $GIT commit -q -m in-wt && git log -1 --format=%s" 2>&1)
  expect_eq "$u: git worktree add ../wt and a commit in it work (with --add-dirs ../wt)" "$out" in-wt
  expect_eq "$u: ... the commit is the repository's on the host" "$(host "$u" git log -1 --format=%s side)" in-wt
  out=$(as "$u" "$CASE/wt" "$H" "$CORDON" run --workdir "$CASE/wt" --add-dirs "$W" -- sh -c "echo v >v.txt && git add v.txt && $GIT commit -q -m in-wt-2 && git log -1 --format=%s" 2>&1)
  expect_eq "$u: with the linked worktree as the workdir (and --add-dirs for the repository) commits work" "$out" in-wt-2

  # explain's advice for a workdir whose .git is a pointer file never names a path inside a git directory
  host "$u" $GIT -c protocol.file.allow=always submodule add -q "$mono" sub >/dev/null 2>&1
  for wd in "$CASE/wt" "$W/sub"; do
    advice=$(as "$u" "$wd" "$H" "$CORDON" explain --platform linux --workdir "$wd" 2>&1)
    check "$u: cordon explain for $wd shows its .git pointer" grep -q '\.git pointer' <<<"$advice"
    bad_paths=$(grep -o -- "--add-dirs[ =]'\?[^ ']*" <<<"$advice" | sed "s/^--add-dirs[ =]'\?//" | grep -E '(^|/)\.git(/|$)')
    expect_eq "$u: ... and never suggests --add-dirs on a path inside a .git" "$bad_paths" ""
  done
done

# --- the shell, system configuration, the environment, --add-dirs scripts ----------------------------------
for u in $USERS; do
  new_case "$u"
  printf '# rc\nalias cordon_alias="echo from-bashrc"\n' >"$H/.bashrc"
  echo "secret-history-line" >"$H/.bash_history"
  chown "$u" "$H/.bashrc" "$H/.bash_history"
  # (bash -i without a terminal complains on stderr, naming its pid: only stdout is compared)
  same "bash -ic sees /etc/bash.bashrc's and ~/.bashrc's settings and aliases" \
    sh -c 'bash -ic "alias; shopt checkwinsize; printf \"%s\n\" \"\$PS1\"" 2>/dev/null </dev/null'
  for f in /etc/bash.bashrc /etc/nanorc /etc/manpath.config /etc/profile /etc/inputrc; do
    if [ -f "$f" ]; then same "$f is readable" cksum "$f"; else echo "note: no $f on this host"; fi
  done
  hist_before=$(state "$H/.bash_history")
  out=$(echo 'echo typed-inside' | sbx "$u" -- sh -c 'bash -i 2>/dev/null; cat ~/.bash_history 2>/dev/null' 2>&1)
  check "$u: an interactive bash inside runs what is typed (got: $(echo $out))" grep -qx typed-inside <<<"$out"
  check "$u: ... the host's ~/.bash_history is not readable inside" test -z "$(grep secret-history-line <<<"$out")"
  expect_eq "$u: ... nor changed by it (docs/environment.md)" "$(state "$H/.bash_history")" "$hist_before"
  out=$(sbx "$u" -- sh -c 'echo "$HISTFILE"; cat "$HISTFILE" 2>/dev/null' 2>&1)
  case $(head -1 <<<"$out") in
    "$H/.local/state/cordon/"*) ok "$u: ... a sandboxed shell's HISTFILE is the sandbox's own ($(head -1 <<<"$out"))" ;;
    *) bad "$u: ... a sandboxed shell's HISTFILE is the sandbox's own (got: $(head -1 <<<"$out"))" ;;
  esac
  # Known regression (docs/profiles.md): the history is per workdir, and on Linux the compiler binds
  # nothing beneath the hidden shell-history directory yet, so no history survives the run. Checked as
  # such so the day it is kept again this line says so.
  check "$u: ... keeps no history on Linux for now (per-workdir history, docs/profiles.md)" \
    test -z "$(grep -x 'echo typed-inside' <<<"$out")"

  vars=(GOPATH="$H/gopath" GOFLAGS=-mod=mod NODE_OPTIONS=--max-old-space-size=4096
        VIRTUAL_ENV="$W/.venv" http_proxy=http://proxy.example:3128 https_proxy=http://proxy.example:3128
        no_proxy=localhost,127.0.0.1 HTTP_PROXY=http://proxy.example:3128 HTTPS_PROXY=http://proxy.example:3128
        NO_PROXY=localhost)
  secrets=(AWS_SECRET_ACCESS_KEY=s3cr3t GITHUB_TOKEN=ghp_s3cr3t)
  names=$(printf '%s\n' "${vars[@]}" "${secrets[@]}" | sed 's/=.*//' | tr '\n' ' ')
  out=$(as "$u" "$W" "$H" env "${vars[@]}" "${secrets[@]}" "$CORDON" run --workdir "$W" -- \
    sh -c 'for n in '"$names"'; do printf "%s=%s\n" "$n" "$(printenv "$n")"; done' 2>&1)
  for v in "${vars[@]}"; do check "$u: $v reaches the command" grep -qxF -- "$v" <<<"$out"; done
  for v in "${secrets[@]}"; do check "$u: ${v%%=*} does not reach the command" grep -qx -- "${v%%=*}=" <<<"$out"; done
  # CARGO_HOME names the host's registry, which cargo's build scripts run from: the sandbox's own cargo
  # home replaces it (docs/environment.md)
  out=$(as "$u" "$W" "$H" env CARGO_HOME="$H/.cargo" "$CORDON" run --workdir "$W" -- printenv CARGO_HOME 2>&1)
  case $out in
    "$H/.local/state/cordon/"*) ok "$u: a CARGO_HOME of the user's is replaced by the sandbox's own ($out)" ;;
    *) bad "$u: a CARGO_HOME of the user's is replaced by the sandbox's own (got: $out)" ;;
  esac

  mkdir -p "$CASE/tools" && printf '#!/bin/sh\necho "tool-ran in $(pwd)"\n' >"$CASE/tools/hello.sh" &&
    chmod 755 "$CASE/tools/hello.sh" && chown -R "$u" "$CASE/tools"
  out=$(sbx "$u" --add-dirs "$CASE/tools" -- "$CASE/tools/hello.sh" 2>&1)
  expect_eq "$u: a script in an --add-dirs directory can be executed" "$out" "tool-ran in $W"
done
finish
