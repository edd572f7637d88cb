#!/usr/bin/env bash
# scripts/deps.sh — install the Debian packages cordon needs, only those that are missing.
set -eu
pkgs=(cmake make gcc clang pkg-config git liblua5.4-dev lua5.4 libyaml-dev libjansson-dev libcmocka-dev
      libseccomp-dev libedit-dev libbsd-dev libmd-dev libncurses-dev libsqlite3-dev libclang-rt-14-dev python3
      util-linux passwd musl-tools
      # the enforcement tests run what a developer runs, and attack through it (tests/enforce/)
      tmux openssh-client lsof procps attr keyutils python3-pip python3-setuptools nodejs cargo
      # the installed man page and completions are rendered and run (tests/cli/test_install.sh)
      groff-base zsh fish)
[ "${1:-}" = "--bench" ] && pkgs+=(bubblewrap hyperfine)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "cordon: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
