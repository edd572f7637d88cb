#!/usr/bin/env bash
# tests/cli/test_config.sh — configuration end to end through `cordon policy` and `cordon explain`:
# an untrusted workdir config is ignored and reported, a trusted one is applied (cordon trust pins it to
# its content: a changed file is ignored again), planted files grant nothing, and bad configuration
# stops cordon with file:line:col before anything is printed.
set -u
CORDON=${CORDON:-cordon}
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

root=$(mktemp -d)
root=$(cd "$root" && pwd -P)
trap 'rm -rf "$root"' EXIT
home="$root/home"
cfg="$home/.config/cordon"
wd="$root/work"
mkdir -p "$cfg" "$wd" "$root/granted-by-config" "$root/secret-gitdir"
chmod 700 "$cfg"

# Runs cordon with a clean HOME and no XDG_CONFIG_HOME, from the workdir. Output in $out/$err, status $st.
run() {
  out=$(cd "$wd" && env -u XDG_CONFIG_HOME HOME="$home" "$CORDON" "$@" 2>"$root/stderr")
  st=$?
  err=$(cat "$root/stderr")
}

expect_status() { # want, label
  if [ "$st" -eq "$1" ]; then ok; else bad "$2: exit $st, want $1 (stderr: $err)"; fi
}
expect_in() { # haystack needle label
  if grep -qF -- "$2" <<<"$1"; then ok; else bad "$3: missing '$2'"; fi
}
expect_not_in() {
  if grep -qF -- "$2" <<<"$1"; then bad "$3: unexpected '$2'"; else ok; fi
}

printf 'add-dirs-ro: [%s/granted-by-config]\n' "$root" >"$wd/.cordon.yaml"

# 1. Untrusted: ignored by policy, reported by explain with how to trust it.
run policy --platform darwin
expect_status 0 "policy with an untrusted workdir config"
expect_not_in "$out" "granted-by-config" "untrusted workdir config must not grant"
run explain --platform darwin
expect_status 0 "explain with an untrusted workdir config"
expect_in "$out" "$wd/.cordon.yaml" "explain names the workdir config"
expect_in "$out" "not trusted" "explain reports the workdir config as not trusted"
expect_in "$out" "--trust-workdir-config" "explain says how to trust it"
expect_in "$out" "run \`cordon trust $wd\`" "and names cordon trust"

# 2. Trusted for one run by the flag: applied.
run policy --platform darwin --trust-workdir-config
expect_status 0 "policy with --trust-workdir-config"
expect_in "$out" "granted-by-config" "a trusted workdir config grants"

# 3. Trusted by `cordon trust`: the file is shown, pinned by its hash, applied, and explain says so.
run trust
expect_status 0 "cordon trust in the workdir"
expect_in "$out" "trusted $wd/.cordon.yaml (sha256:" "cordon trust names the file and its hash"
expect_in "$out" "add-dirs-ro: $root/granted-by-config" "and shows what the file sets"
expect_in "$(cat "$cfg/trusted-workdirs")" "$wd" "the entry is in the trust list"
[ "$(stat -c %a "$cfg/trusted-workdirs")" = 600 ] && ok || bad "the trust list is private (mode 0600)"
run policy --platform darwin
expect_in "$out" "granted-by-config" "a workdir in the trust list is trusted"
run explain --platform darwin
expect_in "$out" "trust-list" "explain names the trust source"
run trust --list
expect_in "$out" "$wd  sha256:" "cordon trust --list shows the entry"
expect_in "$out" "matches: applied" "and that the file still matches"

# 3b. An edit of the trusted file (an agent adding a grant) makes it untrusted until trusted again.
cp "$wd/.cordon.yaml" "$root/saved.yaml"
printf 'add-dirs-ro: [%s/granted-by-config]\nprofile: danger-full-access\n' "$root" >"$wd/.cordon.yaml"
run policy --platform darwin
expect_not_in "$out" "granted-by-config" "a changed trusted file is not applied"
run explain --platform darwin
expect_in "$out" "changed since you trusted it" "explain says the file changed"
expect_in "$out" "run \`cordon trust $wd\` again" "and how to trust it again"
run trust --list
expect_in "$out" "changed since trusted: ignored" "cordon trust --list shows it"
cp "$root/saved.yaml" "$wd/.cordon.yaml"

# 3c. An entry written before pinning (a bare directory) trusts nothing.
printf '# reviewed\n%s\n' "$wd" >"$cfg/trusted-workdirs"
run policy --platform darwin
expect_not_in "$out" "granted-by-config" "an entry without a hash trusts nothing"
run explain --platform darwin
expect_in "$out" "without the hash" "explain says the entry is not pinned"
run trust
expect_in "$(cat "$cfg/trusted-workdirs")" "# reviewed" "cordon trust keeps the user's comments"
[ "$(grep -c "$wd\$" "$cfg/trusted-workdirs")" = 1 ] && ok || bad "cordon trust replaces the old entry"

# 3d. Revoking removes the entry; the file is ignored again.
run trust --revoke "$wd"
expect_in "$out" "revoked: $wd" "cordon trust --revoke says so"
run policy --platform darwin
expect_not_in "$out" "granted-by-config" "a revoked directory is not trusted"
run trust

# 4. A trust list writable by others is not used.
chmod 666 "$cfg/trusted-workdirs"
run policy --platform darwin
expect_not_in "$out" "granted-by-config" "a group/world-writable trust list must not trust anything"
run explain --platform darwin
expect_in "$out" "writable by group or others" "explain reports the unsafe trust list"
chmod 600 "$cfg/trusted-workdirs"

# 5. A trust-list entry that reaches the workdir only through a planted symlink does not match.
mkdir -p "$root/rw"
ln -s "$wd" "$root/rw/looks-trusted"
sed "s|$wd\$|$root/rw/looks-trusted|" "$cfg/trusted-workdirs" >"$root/list" && cat "$root/list" >"$cfg/trusted-workdirs"
run policy --platform darwin
expect_not_in "$out" "granted-by-config" "a symlinked trust-list entry must not match"
run explain --platform darwin
expect_in "$out" "symbolic link" "explain says the entry goes through a symlink"
rm -f "$cfg/trusted-workdirs"

# 6. A planted .git pointer file grants nothing, even with a trusted config.
printf 'gitdir: %s/secret-gitdir\n' "$root" >"$wd/.git"
run policy --platform darwin --trust-workdir-config
expect_status 0 "policy with a .git pointer file"
expect_not_in "$out" "secret-gitdir" "a .git pointer file must not grant its gitdir"
rm -f "$wd/.git"

# 7. A planted .cordon.yaml symlink is not read, even when the directory is trusted.
printf 'add-dirs: [%s/granted-by-config]\n' "$root" >"$root/evil.yaml"
rm -f "$wd/.cordon.yaml"
ln -s "$root/evil.yaml" "$wd/.cordon.yaml"
run policy --platform darwin --trust-workdir-config
expect_not_in "$out" "granted-by-config" "a symlinked .cordon.yaml must not be applied"
rm -f "$wd/.cordon.yaml"

# 8. Bad configuration: exit 125, file:line:col on stderr, nothing on stdout.
printf 'enable: [docker\n' >"$cfg/config.yaml"
run policy --platform darwin
expect_status 125 "malformed YAML in the user config"
expect_in "$err" "$cfg/config.yaml:2:1:" "a YAML syntax error names file:line:col"
[ -z "$out" ] && ok || bad "nothing may be printed on a config error"
printf 'profile: read-only\nbogus-key: 1\n' >"$cfg/config.yaml"
run explain --platform darwin
expect_status 125 "an unknown key"
expect_in "$err" "$cfg/config.yaml:2:1: unknown key 'bogus-key'" "an unknown key names file:line:col"
printf 'add-dirs: true\n' >"$wd/.cordon.yaml"
rm -f "$cfg/config.yaml"
run policy --platform darwin --trust-workdir-config
expect_status 125 "a wrong type in a trusted workdir config"
expect_in "$err" "$wd/.cordon.yaml:1:11:" "a wrong type names file:line:col"
rm -f "$wd/.cordon.yaml"

# 9. A user config writable by others stops cordon rather than being skipped.
printf 'profile: read-only\n' >"$cfg/config.yaml"
chmod 666 "$cfg/config.yaml"
run policy --platform darwin
expect_status 125 "a world-writable user config"
expect_in "$err" "writable by group or others" "the reason is given"
rm -f "$cfg/config.yaml"

# 10. Awkward paths from a config file reach the policy quoted, never split.
odd="$root/odd dir, with \"quotes\": and ünïcode"
mkdir -p "$odd"
printf 'add-dirs-ro:\n  - %s\n' "'$odd'" >"$cfg/config.yaml"
run policy --platform darwin
expect_status 0 "a path with spaces, quotes, a colon and non-ASCII"
expect_in "$out" 'odd dir, with \"quotes\": and ünïcode' "the path is written whole and quoted"
printf 'add-dirs-ro: ["%s/new\\nline"]\n' "$root" >"$cfg/config.yaml"
run policy --platform darwin
expect_status 125 "a path with a newline"
expect_in "$err" "control character" "a newline in a path is refused"
rm -f "$cfg/config.yaml"

# 11. The user config's values are applied (no trust needed for the user's own file).
printf 'add-dirs-ro: [%s/granted-by-config]\n' "$root" >"$cfg/config.yaml"
run policy --platform darwin
expect_in "$out" "granted-by-config" "the user config is applied"
run policy --platform darwin --no-config
expect_not_in "$out" "granted-by-config" "--no-config reads no configuration"
rm -f "$cfg/config.yaml"

# 12. A Lua profile named by a trusted workdir config runs restricted: its rules are appended, and a
#     script that reaches for os.execute stops cordon (exit 125) without running anything.
cat >"$wd/tools.lua" <<'EOF'
return { allow { "file-read*", subpath "/opt/lua-profile-tools", comment = "from a Lua profile" } }
EOF
printf 'append-profile: [tools.lua]\n' >"$wd/.cordon.yaml"
run policy --platform darwin --trust-workdir-config
expect_status 0 "a Lua profile from a trusted workdir config"
expect_in "$out" '(allow file-read* (subpath "/opt/lua-profile-tools"))' "the Lua profile's rule is appended"
run policy --platform darwin
expect_not_in "$out" "lua-profile-tools" "an untrusted config's Lua profile is not run"
cat >"$wd/evil.lua" <<EOF
os.execute("touch $root/pwned")
return {}
EOF
printf 'append-profile: [evil.lua]\n' >"$wd/.cordon.yaml"
run policy --platform darwin --trust-workdir-config
expect_status 125 "a Lua profile calling os.execute"
expect_in "$err" "evil.lua:1:" "the error names the script and line"
[ ! -e "$root/pwned" ] && ok || bad "a Lua profile script ran a command"
rm -f "$wd/.cordon.yaml" "$wd/tools.lua" "$wd/evil.lua"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
