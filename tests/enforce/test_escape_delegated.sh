#!/usr/bin/env bash
# tests/enforce/test_escape_delegated.sh — protected files that handed their power to something nobody
# protected (found by the seventh session's attack): a commondir planted in the workdir's .git borrowing
# another repository's relative hooksPath; a stopped rebase's or cherry-pick's options naming a merge
# strategy program (git-merge-../x) the sandbox wrote; an allowed .envrc that sources a work-tree file (direnv);
# shell history typed in a full-access run and read by a read-only run elsewhere; agents' project
# settings that make the agent run commands at its next start. Each case plants from inside, then runs
# the host's own ordinary command (git commit, direnv's export) and checks for its marker; the controls
# show the planted file runs when written outside. (Hook and start-up-file links: test_escape_links.sh;
# the caches a full-access run used: test_escape_caches.sh.)
. "$(dirname "$0")/lib.sh"

hook='#!/bin/sh\necho pwned >"%s"\n'

for u in $USERS; do
  # a commondir planted in the workdir's .git borrows another repository's relative hooksPath
  new_case "$u"
  X="$O/other"; mkdir -p "$X"; git -C "$X" init -q; git -C "$X" config core.hooksPath .husky/_
  git -C "$X" -c user.email=t@e -c user.name=t commit -q --allow-empty -m init
  chown -R "$u" "$CASE"
  sbx "$u" -- sh -c "printf '%s\n' '$X/.git' >.git/commondir; mkdir -p .husky/_ && printf '$hook' '$O/marker' >.husky/_/pre-commit && chmod +x .husky/_/pre-commit" >/dev/null 2>&1
  host "$u" git -c user.email=t@e -c user.name=t commit -q --allow-empty -m x >/dev/null 2>&1
  check "$u/commondir: the host's commit runs no hook through a commondir planted inside" test ! -e "$O/marker"
  expect_eq "$u/commondir: no commondir is created in the workdir's .git" "$(state "$W/.git/commondir")" "absent"
  # control: the same commondir written outside makes the commit run the borrowed hooksPath's hook
  as "$u" "$W" "$H" sh -c "printf '%s\n' '$X/.git' >.git/commondir"
  host "$u" git -c user.email=t@e -c user.name=t commit -q --allow-empty -m y >/dev/null 2>&1
  check "$u/commondir: control: written outside, the borrowed hooksPath runs" test -e "$O/marker"

  # a stopped rebase's strategy file naming a program the sandbox wrote (git-merge-../x), written in
  # place and renamed over; then the same through sequencer/opts for a stopped cherry-pick
  for how in write rename; do
    new_case "$u"
    as "$u" "$W" "$H" sh -c 'for i in 1 2 3; do echo $i >f$i; git add f$i; git -c user.email=t@e -c user.name=t commit -qm c$i; done'
    if [ $how = write ]; then put="printf '%s\n' ../x >.git/rebase-merge/strategy"
    else put="printf '%s\n' ../x >.git/rebase-merge/s.tmp && mv .git/rebase-merge/s.tmp .git/rebase-merge/strategy"; fi
    sbx "$u" -- sh -c "GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/edit/' git -c user.email=t@e -c user.name=t rebase -q -i HEAD~2 >/dev/null 2>&1
      git -c user.email=t@e -c user.name=t commit -q --amend -m c2-amended
      $put
      mkdir -p 'git-merge-..' && printf '$hook' '$O/marker' >git-merge-../x && chmod +x git-merge-../x" >/dev/null 2>&1
    expect_eq "$u/rebase-strategy-$how: the rebase stopped inside (the premise)" "$(test -d "$W/.git/rebase-merge" && echo stopped)" "stopped"
    host "$u" git -c user.email=t@e -c user.name=t rebase --continue >/dev/null 2>&1
    check "$u/rebase-strategy-$how: the host's git rebase --continue runs no program a strategy file written inside names" test ! -e "$O/marker"
    expect_eq "$u/rebase-strategy-$how: the rebase finished on the host" "$(test -d "$W/.git/rebase-merge" || echo done)" "done"
  done
  new_case "$u"
  as "$u" "$W" "$H" sh -c 'git checkout -qb side; for i in 1 2; do echo s$i >s$i; git add s$i; git -c user.email=t@e -c user.name=t commit -qm s$i; done
    git checkout -q -; echo other >s2; git add s2; git -c user.email=t@e -c user.name=t commit -qm conflict'
  sbx "$u" -- sh -c "git -c user.email=t@e -c user.name=t cherry-pick HEAD..side >/dev/null 2>&1
    test -d .git/sequencer && echo stopped >.cherry-stopped
    git config -f .git/sequencer/opts options.strategy ../x
    mkdir -p 'git-merge-..' && printf '$hook' '$O/marker' >git-merge-../x && chmod +x git-merge-../x" >/dev/null 2>&1
  expect_eq "$u/cherry-pick-opts: the cherry-pick stopped inside on a conflict (the premise)" "$(cat "$W/.cherry-stopped" 2>/dev/null)" stopped
  host "$u" sh -c 'echo resolved >s2; git add s2; git -c user.email=t@e -c user.name=t -c core.editor=true cherry-pick --continue' >/dev/null 2>&1
  check "$u/cherry-pick-opts: the host's cherry-pick --continue runs no program sequencer/opts written inside names" test ! -e "$O/marker"
  # control: the same strategy file written outside is run by the host's rebase --continue
  new_case "$u"
  as "$u" "$W" "$H" sh -c 'for i in 1 2 3; do echo $i >f$i; git add f$i; git -c user.email=t@e -c user.name=t commit -qm c$i; done'
  as "$u" "$W" "$H" sh -c "GIT_SEQUENCE_EDITOR='sed -i 1s/^pick/edit/' git -c user.email=t@e -c user.name=t rebase -q -i HEAD~2 >/dev/null 2>&1
    git -c user.email=t@e -c user.name=t commit -q --amend -m c2-amended
    printf '%s\n' ../x >.git/rebase-merge/strategy
    mkdir -p 'git-merge-..' && printf '$hook' '$O/marker' >git-merge-../x && chmod +x git-merge-../x" >/dev/null 2>&1
  host "$u" git -c user.email=t@e -c user.name=t rebase --continue >/dev/null 2>&1
  check "$u/rebase-strategy: control: written outside, the strategy's program runs at rebase --continue" test -e "$O/marker"

  # an allowed .envrc that sources a work-tree file (direnv's source_env_if_exists)
  if command -v direnv >/dev/null; then
    new_case "$u"
    printf 'source_env_if_exists .envrc.local\n' >"$W/.envrc"; chown -R "$u" "$CASE"
    host "$u" direnv allow . >/dev/null 2>&1
    sbx "$u" -- sh -c "echo 'echo pwned >\"$O/marker\"' >.envrc.local" >/dev/null 2>&1
    host "$u" direnv export bash >/dev/null 2>&1
    check "$u/envrc-source: direnv's next export on the host runs nothing written inside" test ! -e "$O/marker"
    check "$u/envrc-source: explain names the sourced file" \
      grep -qF "$W/.envrc.local" <<<"$(as "$u" "$W" "$H" "$CORDON" explain --workdir "$W" 2>&1)"
    as "$u" "$W" "$H" sh -c "echo 'echo ran >\"$O/control\"' >.envrc.local"
    host "$u" direnv export bash >/dev/null 2>&1
    check "$u/envrc-source: control: written outside, .envrc.local runs" test -e "$O/control"
  else
    echo "note: no direnv; the .envrc case is not run"
  fi

  # the shell history: typed in a full-access run, read by a read-only run elsewhere
  new_case "$u"
  mkdir -p "$O/untrusted"; chown "$u" "$O/untrusted"
  printf 'export GITHUB_TOKEN=ghp_typed_by_the_user\nexit\n' | sbx "$u" --profile danger-full-access -- bash -i >/dev/null 2>&1
  got=$(as "$u" "$O/untrusted" "$H" "$CORDON" run --profile read-only --network restricted -- sh -c 'cat "$HISTFILE"' 2>/dev/null)
  expect_eq "$u/history: a read-only run elsewhere reads no history typed in a full-access run" "$(echo "$got" | grep -c ghp_typed)" "0"

  # agents' project settings that make the agent run commands at its next start
  new_case "$u"
  for f in .claude/settings.json .claude/settings.local.json .claude/hooks/start.sh .mcp.json .gemini/settings.json \
      .cursor/mcp.json .vscode/mcp.json opencode.json opencode.jsonc .opencode/plugin/x.js; do
    sbx "$u" -- sh -c "mkdir -p \"\$(dirname $f)\"; echo '{\"hooks\":{}}' >$f" >/dev/null 2>&1
    expect_eq "$u/agent-config: $f is not written inside" "$(state "$W/$f")" "absent"
  done
  sbx "$u" -- sh -c "mkdir -p .claude && echo ok >.claude/notes.md" >/dev/null 2>&1
  expect_eq "$u/agent-config: the rest of .claude stays writable" "$(cat "$W/.claude/notes.md" 2>/dev/null)" ok
done
finish
