#!/usr/bin/env bash
# Marks the start of one phase of `make test` (deps, build, deb, host tests, lab) in .build/ci-phases, so that the
# run's last line can say where its time went: CI shows only the end of the output. APPLIANCE_CI_PHASES names
# another file (the watchdog's test).
#   .ci/phase.sh NAME      start phase NAME now (`.ci/phase.sh --reset` first: a new run)
#   .ci/phase.sh --report  one line: each phase's duration and the total
set -euo pipefail
cd "$(dirname "$0")/.."
file=${APPLIANCE_CI_PHASES:-.build/ci-phases}
mkdir -p "$(dirname "$file")"
case "${1:?usage: phase.sh NAME|--reset|--report}" in
  --reset) : > "$file" ;;
  --report)
    [ -s "$file" ] || exit 0
    awk -v now="$(date +%s)" '
      { name[NR] = $1; start[NR] = $2 }
      END {
        line = "phases:"
        for (i = 1; i <= NR; i++) {
          end = (i < NR) ? start[i + 1] : now
          line = line sprintf(" %s %d s%s", name[i], end - start[i], i < NR ? "," : "")
        }
        printf "%s; total %d s (%.1f min)\n", line, now - start[1], (now - start[1]) / 60
      }' "$file" ;;
  *) echo "$1 $(date +%s)" >> "$file" ;;
esac
