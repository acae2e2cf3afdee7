#!/usr/bin/env bash
# Runs inside the lab VM (Tests/Lab/lab-vm --display): the XCTest cases of Tests/EndToEndTests/Lab against the
# real drivers, with the host's build. Their data go to the lab's tmpfs ($APPLIANCE_LAB_TMP: SQLite's WAL does
# not work on the 9p root). APPLIANCE_LAB_TESTS picks classes; the exit status is XCTest's.
set -uo pipefail
cd "$(dirname "$0")/../.."
tests=${APPLIANCE_LAB_TESTS:-EndToEndTests.LabCameraTests,EndToEndTests.LabHotplugTests,EndToEndTests.LabAudioTests,EndToEndTests.LabShutterTests,EndToEndTests.LabGpioTests,EndToEndTests.LabScreenTests,EndToEndTests.LabClockTests,EndToEndTests.LabSpeakerTests,EndToEndTests.LabBusyStartTests,EndToEndTests.LabChannelTests}
exec .build/debug/appliancePackageTests.xctest "$tests"
