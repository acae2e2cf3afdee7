# appliance — the two set-up commands are `make run` and `make test`; both install what is missing first.
SWIFT ?= swift
DEBUG_BIN := .build/debug/appliance
RELEASE_DIR := .build-release
ARGS ?=
# Every build checks that a module imports only what Package.swift says it depends on (docs/ARCHITECTURE.md).
BUILD_FLAGS := --explicit-target-dependency-import-check error
# The Debian package's version; empty: what the release binary's `appliance --version` prints.
VERSION ?=
# pkg-config files of our own, searched first: one system file without the -pthread SwiftPM refuses
# (packaging/pkgconfig-shadow.sh says why).
PKG_SHADOW := $(CURDIR)/.build/pkgconfig
# The dashboard's script, read by node --check in make check and make test.
WEB_SCRIPT := Sources/ApplianceWeb/Resources/app.js
export PKG_CONFIG_PATH := $(PKG_SHADOW)$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))

.PHONY: run test check format bench fuzz deps build release deb deb-check embed-config clean

## Install the system packages (GStreamer, SQLite, libjpeg, ffmpeg) that are missing.
deps:
	@bash packaging/install-deps.sh
	@bash packaging/pkgconfig-shadow.sh $(PKG_SHADOW)

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

## Build and start the daemon on the embedded default config (Config/appliance.toml); data goes to ./data.
run: build
	$(DEBUG_BIN) run $(ARGS)

## Build everything and run all tests (unit + end-to-end with the real daemon, GStreamer and ffprobe).
test:
	@bash .ci/phase.sh --reset && bash .ci/phase.sh deps
	@bash packaging/install-deps.sh --test
	@bash packaging/pkgconfig-shadow.sh $(PKG_SHADOW)
	@bash .ci/phase.sh build
	@python3 scripts/check-architecture.py
	@python3 scripts/check-docs.py
	@python3 scripts/check-line-length.py
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Sources Tests
	@if command -v node >/dev/null; then node --check $(WEB_SCRIPT) && echo "web script: node --check passes"; \
	else echo "web script: not checked (no node; make test installs it)"; fi
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	@bash .ci/swift-test.sh

## The fast loop while working: the architecture and docs checks, the build, then the unit and in-process tests
## only (no daemon process, no VM, no package). `make test` before you push.
check: deps
	@python3 scripts/check-architecture.py
	@python3 scripts/check-docs.py
	@python3 scripts/check-line-length.py
	$(SWIFT) format lint --strict --recursive --parallel Package.swift Sources Tests
	@if command -v node >/dev/null; then node --check $(WEB_SCRIPT) && echo "web script: node --check passes"; \
	else echo "web script: not checked (no node; make test installs it)"; fi
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(SWIFT) test --skip-build --disable-swift-testing --skip EndToEndTests

## Formats Sources and Tests as .swift-format says (make check and make test fail on a file that is not).
format:
	$(SWIFT) format format --in-place --recursive --parallel Package.swift Sources Tests

## Release build used by the benchmark and the Debian package (Swift runtime linked in: no Swift needed to run it).
release: deps
	$(SWIFT) build $(BUILD_FLAGS) -c release --static-swift-stdlib --scratch-path $(RELEASE_DIR) --product appliance

## Debian package of the release build: .build-deb/appliance_<version>_<arch>.deb (`make deb VERSION=0.2.0`).
deb: release
	@bash packaging/install-deps.sh --deb
	VERSION="$(VERSION)" bash packaging/build-deb.sh --binary $(RELEASE_DIR)/release/appliance --out .build-deb

## The package as `make test` checks it (built beside the host tests, see .ci/swift-test.sh): the same files and
## scripts, around a debug build with the Swift runtime linked in (.build-static; 7.5 min alone from a fresh clone
## here, the release build 17 to 28 min). `make deb` ships the release build.
deb-check: deps
	$(SWIFT) build $(BUILD_FLAGS) --static-swift-stdlib --scratch-path .build-static --product appliance
	@bash packaging/install-deps.sh --deb
	VERSION="$(VERSION)" bash packaging/build-deb.sh --binary .build-static/debug/appliance --out .build-deb

## Measure CPU, memory and latency against gst-launch-1.0; writes docs/BENCHMARKS.md.
bench: release
	@bash packaging/install-deps.sh --test
	python3 Tests/Benchmarks/bench.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_features.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_dashcam.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_writes.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_service.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_overlay.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_input.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_web.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_tls.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_accounts.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_streaming.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_motion.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_objects.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_network.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_talk.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_echo.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_channels.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_channel_detection.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_passthrough.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_encoders.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_s3.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_timeline.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_timeline_page.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	APPLIANCE_MOTION_QUALITY_SEEDS=5 APPLIANCE_MOTION_QUALITY_OUT=$(CURDIR)/docs/BENCHMARKS.md swift test --filter MotionQualityTests
	python3 Tests/Benchmarks/bench_soak.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md
	python3 Tests/Benchmarks/bench_chaos.py --binary $(RELEASE_DIR)/release/appliance --out docs/BENCHMARKS.md

## Coverage-guided fuzzing (libFuzzer, swift build --sanitize=fuzzer) of what reads others' bytes: the MP4 recovery,
## the config loader, the SOAP parser; FUZZ_SECONDS (60) each. Then schemathesis against the web API with
## API_FUZZ_EXAMPLES (100) examples per operation, where `make test` tries 10, and KillTests with FUZZ_KILLS (120)
## SIGKILLs at random moments, where `make test` makes 24. Not part of `make test`;
## Tests/Fuzz/README.md.
FUZZ_SECONDS ?= 60
API_FUZZ_EXAMPLES ?= 100
FUZZ_KILLS ?= 120
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash Tests/Fuzz/run.sh
	$(SWIFT) build $(BUILD_FLAGS) --build-tests
	APPLIANCE_FUZZ_EXAMPLES=$(API_FUZZ_EXAMPLES) $(SWIFT) test --skip-build --disable-swift-testing --filter APIFuzzTests
	APPLIANCE_KILLS=$(FUZZ_KILLS) $(SWIFT) test --skip-build --disable-swift-testing --filter KillTests

## Regenerate the embedded copy of Config/appliance.toml after editing it.
embed-config:
	python3 packaging/embed-config.py

clean:
	rm -rf .build $(RELEASE_DIR) .build-static .build-deb
