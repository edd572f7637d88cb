# tests/lib/scratch.sh — cordon_scratch NAME prints a fresh directory (its real path) for a test's HOME,
# workdir or profile tree, placed outside /tmp, /var, /etc and /private wherever the clone lives.
# Why: a darwin policy names those through /private, and the permission profile makes /tmp writable;
# either would change what a test asks about when CI clones the repository under /tmp.
# The caller removes the directory (trap 'rm -rf "$dir"' EXIT).
cordon_scratch() {
  local name=$1 base real home
  home=$(getent passwd "$(id -u)" | cut -d: -f6)
  for base in "${CORDON_BUILD_DIR:-}" "${home:+$home/.cache}" /opt; do
    [ -n "$base" ] || continue
    mkdir -p "$base" 2>/dev/null || continue
    real=$(cd "$base" && pwd -P) || continue
    case "$real/" in /tmp/* | /var/* | /etc/* | /private/*) continue ;; esac
    mktemp -d "$real/$name.XXXXXX" 2>/dev/null && return 0
  done
  echo "cordon_scratch: no writable directory outside /tmp, /var, /etc and /private" >&2
  return 1
}
