#!/usr/bin/env bash
# tests/enforce/test_escape_upward.sh — files tools search for upward from where they run (docs/findings
# 15 and 16): in the workdir `rust-toolchain.toml` (`path =` replaces cargo and rustc) and
# `.cargo/config.toml` (`build.rustc-wrapper`, run by `cargo metadata` at editor open), at the top and in a
# subfolder that was there at launch; with HOME as the workdir `~/node_modules/<pkg>` (node's require()
# in any project under HOME lacking <pkg>), `~/rust-toolchain.toml`, `~/go.work`. The host half uses node
# (on every user's PATH here); the cargo halves are shown by docs/findings/rust-toolchain-path.sh, here
# the premise (the file written) is checked.
. "$(dirname "$0")/lib.sh"

for u in $USERS; do
  # the workdir's own Rust toolchain files
  new_case "$u"
  host "$u" mkdir -p sub  # a member crate that was there at launch (one the run makes is its own: linux-gate.md)
  out=$(sbx "$u" -- sh -c 'mkdir -p .cargo sub/.cargo; echo "[toolchain]" >rust-toolchain.toml && echo w1;
    echo "[build]" >.cargo/config.toml && echo w2; echo "[build]" >sub/.cargo/config.toml && echo w3;
    echo x >rust-toolchain && echo w4; echo fine >still-writable' 2>&1)
  check "$u: rust-toolchain.toml cannot be written in the workdir" test ! -e "$W/rust-toolchain.toml"
  check "$u: rust-toolchain cannot be written in the workdir" test ! -e "$W/rust-toolchain"
  check "$u: .cargo/config.toml cannot be written in the workdir" test ! -e "$W/.cargo/config.toml"
  check "$u: .cargo/config.toml cannot be written in a subfolder (cargo reads every ancestor)" test ! -e "$W/sub/.cargo/config.toml"
  expect_eq "$u: the rest of the workdir stays writable" "$(cat "$W/still-writable" 2>/dev/null)" fine

  # HOME as the workdir: plain names at HOME's top that every project below reads
  new_case "$u"
  mkdir -p "$H/proj" && chown "$u" "$H/proj"
  as "$u" "$H" "$H" "$CORDON" run --workdir "$H" -- sh -c '
    mkdir -p node_modules/debug && printf "require(\"fs\").writeFileSync(\"%s\", \"x\")\n" "$1" >node_modules/debug/index.js
    echo "[toolchain]" >rust-toolchain.toml; echo "go 1.22" >go.work; echo fine >still-writable' sh "$O/marker" >/dev/null 2>&1
  as "$u" "$H/proj" "$H" node -e 'try { require("debug") } catch (e) {}' >/dev/null 2>&1
  check "$u: the host's node in another project under HOME loads nothing planted in ~/node_modules" test ! -e "$O/marker"
  check "$u: ~/rust-toolchain.toml cannot be written with HOME as the workdir" test ! -e "$H/rust-toolchain.toml"
  check "$u: ~/go.work cannot be written with HOME as the workdir" test ! -e "$H/go.work"
  expect_eq "$u: HOME's other plain files stay writable" "$(cat "$H/still-writable" 2>/dev/null)" fine
  # control: the same require on the host loads a planted module
  mkdir -p "$O/ctl/node_modules/debug" "$O/ctl/p"
  printf 'require("fs").writeFileSync("%s", "x")\n' "$O/ctl-marker" >"$O/ctl/node_modules/debug/index.js"; chmod -R a+rX "$O"
  (cd "$O/ctl/p" && node -e 'try { require("debug") } catch (e) {}') 
  check "control: node's upward search loads a module from an ancestor's node_modules" test -e "$O/ctl-marker"
done
finish
