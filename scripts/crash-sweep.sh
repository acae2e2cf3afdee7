#!/usr/bin/env bash
# The long versions of the crash tests that `make test` samples: every cut point of every recording in
# FragmentCutTests (about 2,000 cuts, each finished, compared with mp4mux's own index and decoded by ffmpeg), and
# KillTests with KILLS SIGKILLs (default 200) at random moments. Prints the seeds; a failure replays with
# APPLIANCE_CUT_SEED / APPLIANCE_KILL_SEED. Run after `make test` (or `swift build --build-tests`).
set -euo pipefail
cd "$(dirname "$0")/.."
tests=.build/debug/appliancePackageTests.xctest
[ -x "$tests" ] || swift build --build-tests
APPLIANCE_CUT_SWEEP=all "$tests" EngineTests.FragmentCutTests
APPLIANCE_KILLS="${KILLS:-200}" "$tests" EndToEndTests.KillTests
