#!/usr/bin/env bash
# tests/enforce/test_escape_trusted_files.sh — the files a trusted workdir config names (a `scripts:`
# Lua script, an `append-profile:` .sb) are pinned by its trust entry, like the config itself. A run
# whose workdir is the parent directory can write them (that run does not read the project's config, so
# nothing protects them), and the next run in the trusted project used to run what it wrote: an add_dir
# or an allow rule toward a directory outside every writable root. Now that run ignores the config and
# the directory outside stays unwritten; after `cordon trust` again (the user reviewed the change) the
# grant applies, which shows the attack files do grant what they say.
. "$(dirname "$0")/lib.sh"

for u in $USERS; do
  for kind in script sb; do
    new_case "$u"
    P="$W/proj"
    mkdir -p "$P/cordon"
    if [ "$kind" = script ]; then
      printf 'scripts: [cordon/team.lua]\n' >"$P/.cordon.yaml"
      printf 'return { allow { "file-read*", subpath("/opt/team") } }\n' >"$P/cordon/team.lua"
      attack="printf 'add_dir \"%s\"\\nreturn {}\\n' '$O' >proj/cordon/team.lua"
    else
      printf 'append-profile: [cordon/extra.sb]\n' >"$P/.cordon.yaml"
      printf '(allow file-read* (subpath "/opt/team"))\n' >"$P/cordon/extra.sb"
      attack="printf '(allow file-read* file-write* (subpath \"%s\"))\\n' '$O' >proj/cordon/extra.sb"
    fi
    chown -R "$u" "$P"
    as "$u" "$P" "$H" "$CORDON" trust "$P" >/dev/null || bad "$u/$kind: cordon trust"
    # the agent, run in the parent directory, rewrites the trusted project's file
    as "$u" "$W" "$H" "$CORDON" run -- sh -c "$attack" >/dev/null 2>&1
    expect_eq "$u/$kind: a run in the parent directory could rewrite the named file (the premise)" \
      "$(grep -c "$O" "$P/cordon/"* | grep -vc ':0$')" "1"
    # the user's next run in the trusted project
    as "$u" "$P" "$H" "$CORDON" run -- sh -c "echo escaped >'$O/marker'" >/dev/null 2>&1
    check "$u/$kind: the rewritten file grants nothing in the next trusted run (no marker outside)" \
      test ! -e "$O/marker"
    why=$(as "$u" "$P" "$H" "$CORDON" explain -- true 2>&1 | grep -c "a file it names")
    expect_eq "$u/$kind: explain says the config is ignored because a file it names changed" "$why" "1"
    # control: trusted again after review, the same file grants what it says
    as "$u" "$P" "$H" "$CORDON" trust "$P" >/dev/null || bad "$u/$kind: cordon trust again"
    as "$u" "$P" "$H" "$CORDON" run -- sh -c "echo granted >'$O/marker'" >/dev/null 2>&1
    expect_eq "$u/$kind: control: re-trusted, the file's grant applies" "$(cat "$O/marker" 2>/dev/null)" "granted"
  done
done
finish
