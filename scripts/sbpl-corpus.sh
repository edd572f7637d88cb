#!/usr/bin/env bash
# scripts/sbpl-corpus.sh — how many profiles of a collection `cordon check` evaluates.
#
#   scripts/sbpl-corpus.sh [--min PERCENT] [--quiet] DIR... [-- CHECK-OPTIONS...]
#
# Every *.sb file under each DIR is decided once with
#   cordon check --policy FILE --default-params --import-dir DIR(S) CHECK-OPTIONS file-read-data /
# (the directories also resolve (import …), as /System/Library/Sandbox/Profiles and /usr/share/sandbox
# do on a Mac). A file "evaluates" when check answers allow or deny (exit 0 or 1); otherwise its first
# error line is printed. CHECK-OPTIONS may give parameters a collection needs beyond the usual ones
# (-D _ROOT=/x). With --min, exits 1 when fewer than PERCENT of the files evaluate.
# Example, on a Mac:  scripts/sbpl-corpus.sh /System/Library/Sandbox/Profiles /usr/share/sandbox
set -u
cordon=${CORDON:-$(dirname "$0")/../build/cordon}
min="" quiet=0 dirs=() extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --min) min=$2; shift 2 ;;
    --quiet) quiet=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) dirs+=("$1"); shift ;;
  esac
done
[ ${#dirs[@]} -gt 0 ] || { echo "usage: $0 [--min PERCENT] [--quiet] DIR... [-- CHECK-OPTIONS...]" >&2; exit 2; }
[ -x "$cordon" ] || { echo "$0: no cordon binary at $cordon (set CORDON)" >&2; exit 2; }
imports=()
for d in "${dirs[@]}"; do imports+=(--import-dir "$d"); done

total=0 good=0
while IFS= read -r -d '' file; do
  total=$((total + 1))
  err=$("$cordon" check --policy "$file" --default-params "${imports[@]}" "${extra[@]}" file-read-data / 2>&1 >/dev/null)
  status=$?
  if [ "$status" -eq 0 ] || [ "$status" -eq 1 ]; then
    good=$((good + 1))
  else
    [ "$quiet" = 1 ] || echo "fails: $(grep -v '^cordon: note:' <<<"$err" | head -n 1)"
  fi
done < <(find "${dirs[@]}" -name '*.sb' -type f -print0 | sort -z)

if [ "$total" -eq 0 ]; then echo "no .sb files under ${dirs[*]}"; exit 2; fi
pct=$((good * 1000 / total))
printf 'evaluated %d of %d profiles (%d.%d%%)\n' "$good" "$total" $((pct / 10)) $((pct % 10))
if [ -n "$min" ] && [ $((good * 100)) -lt $((min * total)) ]; then exit 1; fi
exit 0
