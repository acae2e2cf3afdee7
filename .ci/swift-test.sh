#!/usr/bin/env bash
# Runs the XCTest suites and ends with one plain summary line ("N passed, N failed").
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift test --skip-build --disable-swift-testing 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
summary=$(grep -E "^\s*Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -n 1)
total=$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
failed=$(echo "$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/')
# CI shows only the end of the output: repeat each failure's assertion lines and name the failed tests last.
if grep -qE "error: |' failed \(" "$log"; then
  echo "---- failures ----"
  grep -E ": error: " "$log" | cut -c1-400 | head -n 40
  grep -E "^Test Case '.*' failed \(" "$log" | head -n 40
fi
if [ -n "$summary" ]; then
  echo "tests: $((total - failed)) passed, $failed failed"
fi
if [ "$status" -eq 0 ] && [ -z "$summary" ]; then
  echo "swift test reported no tests" >&2
  exit 1
fi
exit "$status"
