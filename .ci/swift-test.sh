#!/usr/bin/env bash
# Runs the XCTest suites on this machine, then the hardware lab's (Tests/EndToEndTests/Lab) inside a VM with real
# drivers (Tests/Lab/lab-vm; APPLIANCE_SKIP_LAB=1 skips it), and ends with one plain summary line
# ("tests: N passed, N failed, N skipped") over both.
set -uo pipefail
log=$(mktemp)
lab_log=$(mktemp)
trap 'rm -f "$log" "$lab_log"' EXIT

# "Executed 12 tests, with 2 tests skipped and 1 failure" → "12 2 1" (the last such line: the whole run's).
counts() {
  local line
  line=$(grep -E "^\s*Executed [0-9]+ tests?, with" "$1" | tail -n 1)
  [ -n "$line" ] || return 1
  local total skipped failed
  total=$(echo "$line" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
  skipped=$(echo "$line" | grep -oE '[0-9]+ tests? skipped' | grep -oE '^[0-9]+' || echo 0)
  failed=$(echo "$line" | sed -E 's/.*with ([0-9]+ tests? skipped and )?([0-9]+) failures?.*/\2/')
  echo "$total ${skipped:-0} $failed"
}

swift test --skip-build --disable-swift-testing 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

lab_status=0
if [ "${APPLIANCE_SKIP_LAB:-0}" != "1" ]; then
  echo "---- hardware lab (VM: vivid, snd-aloop, uinput) ----"
  bash Tests/Lab/lab-vm --display --timeout 1800 -- bash Tests/Lab/guest-tests.sh 2>&1 | tee "$lab_log"
  lab_status=${PIPESTATUS[0]}
fi

# CI shows only the end of the output: repeat each failure's assertion lines and name the failed tests last.
for file in "$log" "$lab_log"; do
  if grep -qE "error: |' failed \(" "$file"; then
    echo "---- failures ----"
    grep -E ": error: " "$file" | cut -c1-400 | head -n 40
    grep -E "^Test Case '.*' failed \(" "$file" | head -n 40
  fi
done

if ! host=$(counts "$log"); then
  echo "swift test reported no tests" >&2
  exit 1
fi
read -r total skipped failed <<<"$host"
passed=$((total - skipped - failed))
if [ "${APPLIANCE_SKIP_LAB:-0}" != "1" ]; then
  if lab=$(counts "$lab_log"); then
    read -r lab_total lab_skipped lab_failed <<<"$lab"
    # The lab's tests were counted as skipped on this machine; count them once, as they ran in the VM.
    skipped=$((skipped - lab_total + lab_skipped))
    passed=$((passed + lab_total - lab_skipped - lab_failed))
    failed=$((failed + lab_failed))
  else
    echo "the hardware lab ran no tests (exit $lab_status)" >&2
    failed=$((failed + 1))
    [ "$lab_status" -ne 0 ] || lab_status=1
  fi
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$status" -eq 0 ] || exit "$status"
exit "$lab_status"
