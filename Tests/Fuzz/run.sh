#!/usr/bin/env bash
# `make fuzz`: builds the fuzz package with libFuzzer (its own scratch path, .build-fuzz) and runs each fuzzer for
# FUZZ_SECONDS (60) from the seeds in corpus/<name>/. New inputs go to .build-fuzz/corpus/<name>/ (kept between
# runs, outside git), crash artifacts to .build-fuzz/artifacts/<name>/. Exits non-zero if any fuzzer crashed.
# FUZZERS="mp4 soap" runs some of them only.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch=${FUZZ_SCRATCH:-$root/.build-fuzz}
seconds=${FUZZ_SECONDS:-60}
fuzzers=${FUZZERS:-mp4 config soap}
# libFuzzer catches the crash and writes the input only if Swift's backtracer does not take the signal first.
export SWIFT_BACKTRACE=enable=no
declare -A product=([mp4]=FuzzMp4 [config]=FuzzConfig [soap]=FuzzSOAP)

# The root's pins, so the fuzz build uses the versions the appliance is built with.
[ -f "$root/Package.resolved" ] && cp -f "$root/Package.resolved" "$here/Package.resolved"
# One product at a time: a plain `swift build` would also link the root's executable, whose main() clashes with
# libFuzzer's.
for name in $fuzzers; do
    (cd "$here" && swift build -c debug --sanitize=fuzzer --scratch-path "$scratch" --product "${product[$name]}") || exit 2
done

failed=()
summary=()
for name in $fuzzers; do
    binary="$scratch/debug/${product[$name]}"
    corpus="$scratch/corpus/$name" artifacts="$scratch/artifacts/$name/" log="$scratch/logs/$name.log"
    mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
    echo "== ${product[$name]}: $seconds s (log: $log)"
    # The first corpus folder receives new inputs; the committed seeds are only read.
    "$binary" "$corpus" "$here/corpus/$name" -dict="$here/dict/$name.dict" -max_total_time="$seconds" \
        -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts" -print_final_stats=1 >"$log" 2>&1
    status=$?
    done_line=$(grep -E '^#[0-9]+\s+DONE' "$log" | tail -1)
    [ -n "$done_line" ] || done_line=$(grep -E '^#[0-9]+' "$log" | tail -1)
    summary+=("${product[$name]}: exit $status; $done_line")
    if [ $status -ne 0 ]; then
        failed+=("$name")
        grep -E 'ERROR: libFuzzer|Fatal error|SUMMARY|Test unit written' "$log" | head -5
    fi
done
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashed: ${failed[*]} (inputs in $scratch/artifacts/; replay: $scratch/debug/<Fuzzer> <file>)" >&2
    exit 1
fi
