// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "appliance",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "appliance", targets: ["appliance"]),
        .library(name: "GStreamerKit", targets: ["GStreamerKit"]),
        .library(name: "ApplianceProtocol", targets: ["ApplianceProtocol"]),
        .library(name: "ApplianceApp", targets: ["ApplianceApp"]),
        .library(name: "ApplianceWeb", targets: ["ApplianceWeb"]),
        .library(name: "Mp4", targets: ["Mp4"]),
        .library(name: "Settings", targets: ["Settings"]),
        .library(name: "ONVIF", targets: ["ONVIF"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.27.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.20.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-1.0 gstreamer-app-1.0 gstreamer-video-1.0 gstreamer-pbutils-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),
        .systemLibrary(
            name: "CGstRTSPServer",
            pkgConfig: "gstreamer-rtsp-server-1.0 gstreamer-rtsp-1.0 gio-2.0",
            providers: [.apt(["libgstrtspserver-1.0-dev"])]
        ),
        .systemLibrary(
            name: "CGstWebRTC",
            pkgConfig: "gstreamer-webrtc-1.0 gstreamer-sdp-1.0",
            providers: [.apt(["libgstreamer-plugins-bad1.0-dev"])]
        ),
        /// libxml2, for reading SOAP: Foundation's XMLParser (under every Swift XML package here) traps on some
        /// malformed documents (an unbound prefix, bytes that are not UTF-8), which a network peer must not be able to
        /// send.
        .systemLibrary(
            name: "CXML",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        /// One thin C target per concern: GStreamer's varargs and macros, JPEG with libjpeg, the RTSP server, a WebRTC
        /// viewer, input devices' ioctls,
        /// and the system calls Swift's Glibc module does not export.
        .target(name: "CGStreamerShim", dependencies: ["CGStreamer"]),
        .target(name: "CJpeg", dependencies: ["CGStreamer"], linkerSettings: [.linkedLibrary("jpeg")]),
        .target(name: "CRTSPServer", dependencies: ["CGStreamer", "CGStreamerShim", "CGstRTSPServer"]),
        .target(name: "CWebRTC", dependencies: ["CGStreamer", "CGStreamerShim", "CGstWebRTC"]),
        .target(name: "CLinuxInput"),
        .target(name: "CSystemCalls"),
        /// The one errno wrapper (EINTR retried, failures thrown as SystemCallError) and the queries CSystemCalls adds.
        .target(name: "SystemCalls", dependencies: ["CSystemCalls"]),
        .target(
            name: "GStreamerKit",
            dependencies: ["CGStreamer", "CGStreamerShim", "CJpeg", "CRTSPServer", "CWebRTC"]
        ),
        /// An MQTT connection over libmosquitto: its own network thread, reconnects with backoff, events as a stream.
        .target(name: "MQTTKit", dependencies: ["CMosquitto"]),
        /// The typed commands, results, errors and events, and their JSON form: shared by the daemon, `ctl` and any
        /// other front end. Foundation (and SystemCalls for the socket client) only.
        .target(name: "ApplianceProtocol", dependencies: ["SystemCalls"]),
        // The appliance's own layers, lowest first; each uses only those above it in this list (the compiler keeps
        // it so: a module cannot import one that imports it). docs/ARCHITECTURE.md draws them.
        /// Base: what every layer shares and nothing else needs: locks and one-shots, device calls with deadlines, the
        /// event hub, health and readiness, the data folder, the boot clock, secrets. No GStreamer, no database.
        .target(
            name: "ApplianceBase",
            dependencies: [
                "ApplianceProtocol", "SystemCalls",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        /// MP4 files read and written by hand: boxes, fragments, finishing and compaction, one video for a time
        /// range. No GStreamer.
        .target(name: "Mp4", dependencies: ["ApplianceBase", "SystemCalls"]),
        /// The maths of motion and sound detection: pure functions of frames and levels (Engine's Motion/ runs them).
        .target(name: "MotionAndSound"),
        /// The certificate the dashboard serves: the device's own (made with swift-certificates, kept under the data
        /// folder), or a user's files checked; its fingerprint. No networking.
        .target(
            name: "TLSIdentity",
            dependencies: [
                "ApplianceBase", "Settings", "SystemCalls",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ]),
        /// The TOML config: every section, its defaults and its checks (TOMLKit stays here).
        .target(
            name: "Settings",
            dependencies: [
                "ApplianceBase", "MotionAndSound",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        /// The SQLite library of recordings, activities, backups, shares and runs (GRDB stays here).
        .target(
            name: "MediaLibrary",
            dependencies: [
                "ApplianceBase", "ApplianceProtocol", "Mp4",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        /// OpenCV (Debian's libopencv-dev: core, imgproc, objdetect, dnn) behind a C interface: the HOG people detector
        /// and the DNN runtime for a user's model. Only the libraries it uses are linked (opencv4.pc names 60).
        .target(
            name: "CObjectDetection",
            cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
            linkerSettings: [
                .linkedLibrary("opencv_core"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_objdetect"),
                .linkedLibrary("opencv_dnn"),
            ]),
        /// Objects in the picture: detectors behind one protocol (HOG by default; a model through OpenCV's DNN).
        .target(name: "ObjectDetection", dependencies: ["ApplianceBase", "MotionAndSound", "CObjectDetection"]),
        /// Accounts with roles: bcrypt (HummingbirdBcrypt), the Digest and token hashes, the checks every door makes.
        .target(
            name: "Accounts",
            dependencies: [
                "ApplianceBase", "ApplianceProtocol", "MediaLibrary",
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        /// AWS Signature Version 4 (S3 and every S3-compatible store): Foundation and swift-crypto only.
        .target(name: "SigV4", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        /// ONVIF's device, media and event services and WS-Discovery (libxml2 stays here).
        .target(
            name: "ONVIF",
            dependencies: [
                "ApplianceBase", "ApplianceProtocol", "Settings", "CXML",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        /// Buttons (evdev, GPIO, gestures) in and lights out.
        .target(
            name: "ButtonsAndLights",
            dependencies: [
                "ApplianceBase", "ApplianceProtocol", "Settings", "CLinuxInput", "SystemCalls",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        /// The WebDAV backup: its queue in the library, streaming uploads from disk (AsyncHTTPClient stays here).
        .target(
            name: "Backup",
            dependencies: [
                "ApplianceBase", "ApplianceProtocol", "MediaLibrary", "Mp4", "Settings", "SigV4", "SystemCalls",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ]),
        /// The control socket: newline-delimited JSON in, typed commands to the one entry point, results and events
        /// out.
        .target(
            name: "ControlSocket",
            dependencies: [
                "ApplianceBase", "ApplianceProtocol",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        /// What watches the daemon from outside the live graph: systemd's notify socket and watchdog (liveness, flow
        /// judged from counters), the status line, restart backoff, the shutdown deadline, the wall clock against the
        /// boot clock.
        .target(
            name: "Supervision",
            dependencies: [
                "ApplianceBase", "ApplianceProtocol", "MediaLibrary",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        /// The recording engine on GStreamer: the live graph, cameras and their switching, recording and its files,
        /// clips, storage and retention, streaming, preview, scrubbing, the timeline, activity.
        .target(
            name: "Engine",
            dependencies: [
                "ApplianceBase", "ApplianceProtocol", "MotionAndSound", "MediaLibrary", "Mp4", "ObjectDetection",
                "Settings",
                "GStreamerKit", "SystemCalls",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        /// What a front end gets from the appliance: the one entry point for commands, the events, the accounts, and
        /// narrow views of media (the live picture's frames, WebRTC sessions, files by id) as protocols the engine's
        /// types meet. No GStreamer: a front end built on this never links the live graph.
        .target(
            name: "FrontEndInterface",
            dependencies: [
                "Accounts", "ApplianceBase", "ApplianceProtocol", "Mp4", "ONVIF", "Settings",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        /// The H.264 encoder's choice: the candidates, a trial of each (in a child process), this boot's cached choice,
        /// the judge of a running encoder's output and the failover to the next candidate.
        .target(
            name: "Encoders",
            dependencies: [
                "ApplianceBase", "ApplianceProtocol", "Engine", "GStreamerKit", "Settings", "Supervision",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        /// MQTT and Home Assistant: events as retained states, command topics to the typed commands, discovery.
        .target(
            name: "MQTTIntegration",
            dependencies: [
                "ApplianceBase", "ApplianceProtocol", "ButtonsAndLights", "MQTTKit", "Settings",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        /// `appliance doctor`: one check per concern (config, GStreamer, encoders, cameras, microphone, storage,
        /// backup, MQTT, the web certificate...), each blocking step with a deadline.
        .target(
            name: "Diagnostics",
            dependencies: [
                "ApplianceBase", "ApplianceProtocol", "Backup", "MotionAndSound", "Encoders", "Engine", "GStreamerKit",
                "MQTTIntegration",
                "MQTTKit", "Mp4", "ObjectDetection", "Settings", "SystemCalls", "TLSIdentity",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        /// The composition root: the appliance's services made and put in their start order, the one entry point
        /// (`CommandDispatcher`), status and metrics.
        .target(
            name: "ApplianceApp",
            dependencies: [
                "Accounts", "ApplianceBase", "ApplianceProtocol", "Backup", "ControlSocket", "MotionAndSound",
                "ButtonsAndLights", "Encoders",
                "Engine", "FrontEndInterface", "MediaLibrary", "MQTTIntegration", "Mp4", "ONVIF", "ObjectDetection",
                "Settings",
                "GStreamerKit", "MQTTKit", "Supervision", "SystemCalls", "TLSIdentity",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        /// The web dashboard and HTTP API: a front end like the socket, calling the same commands.
        .target(
            name: "ApplianceWeb",
            dependencies: [
                "Accounts", "ApplianceBase", "ApplianceProtocol", "FrontEndInterface", "Mp4", "ONVIF", "Settings",
                "TLSIdentity",
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ],
            resources: [.embedInCode("Resources/app.css"), .embedInCode("Resources/app.js")]
        ),
        .executableTarget(
            name: "appliance",
            dependencies: [
                "ApplianceApp", "ApplianceWeb", "ApplianceBase", "ApplianceProtocol", "Diagnostics", "Encoders",
                "Engine", "MediaLibrary", "Mp4",
                "Settings", "GStreamerKit", "Supervision", "SystemCalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        /// What the test targets that run real tools share (`ProcessOutcome`, `Process.finish(within:)`).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "GStreamerKitTests", dependencies: ["GStreamerKit", "CGStreamer", "CGStreamerShim", "TestSupport"]),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls"]),
        .testTarget(name: "ApplianceProtocolTests", dependencies: ["ApplianceProtocol"]),
        // Each layer's tests, beside it: `@testable import` of the module under test only.
        .testTarget(name: "ApplianceBaseTests", dependencies: ["ApplianceBase"]),
        .testTarget(name: "TLSIdentityTests", dependencies: ["TLSIdentity", "TestSupport"]),
        .testTarget(name: "Mp4Tests", dependencies: ["Mp4", "ApplianceBase", "GStreamerKit", "TestSupport"]),
        .testTarget(name: "MotionAndSoundTests", dependencies: ["MotionAndSound", "ApplianceBase", "TestSupport"]),
        /// `[[input]]` keys are checked with what Devices makes of them (gesture rules, the device to open).
        .testTarget(
            name: "SettingsTests", dependencies: ["Settings", "ApplianceBase", "MotionAndSound", "ButtonsAndLights"]),
        .testTarget(
            name: "ObjectDetectionTests", dependencies: ["ObjectDetection", "MotionAndSound", "TestSupport"],
            exclude: ["make_model.py"]),
        .testTarget(
            name: "AccountsTests", dependencies: ["Accounts", "ApplianceBase", "ApplianceProtocol", "MediaLibrary"]),
        .testTarget(
            name: "MediaLibraryTests",
            dependencies: [
                "MediaLibrary", "ApplianceBase", "ApplianceProtocol", "Mp4",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(name: "SigV4Tests", dependencies: ["SigV4"]),
        .testTarget(
            name: "BackupLogicTests",
            dependencies: [
                "Backup", "Settings", "SigV4", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(
            name: "ONVIFTests",
            dependencies: [
                "ONVIF", "ApplianceBase", "ApplianceProtocol", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(
            name: "ButtonsAndLightsTests",
            dependencies: [
                "ButtonsAndLights", "ApplianceBase", "ApplianceProtocol", "Settings", "CLinuxInput", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "EngineTests",
            dependencies: [
                "Engine", "ApplianceBase", "ApplianceProtocol", "MotionAndSound", "MediaLibrary", "Mp4", "Settings",
                "GStreamerKit",
                "Supervision", "SystemCalls", "TestSupport", .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "SupervisionTests",
            dependencies: ["Supervision", "ApplianceBase", "ApplianceProtocol", "MediaLibrary"]),
        /// The whole appliance built and driven in the test process (TestAppliance).
        .testTarget(
            name: "ApplianceAppTests",
            dependencies: [
                "ApplianceApp", "ApplianceBase", "ApplianceProtocol", "ControlSocket", "MotionAndSound",
                "ButtonsAndLights", "Engine", "MediaLibrary",
                "Mp4", "Settings", "GStreamerKit", "Supervision", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "EncodersTests",
            dependencies: [
                "Encoders", "ApplianceBase", "ApplianceProtocol", "Engine", "GStreamerKit", "Settings",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "MQTTIntegrationTests",
            dependencies: ["MQTTIntegration", "ApplianceBase", "ApplianceProtocol", "Settings"]),
        .testTarget(
            name: "DiagnosticsTests",
            dependencies: [
                "Diagnostics", "MotionAndSound", "Encoders", "Engine", "Settings", "TLSIdentity",
            ]),
        .testTarget(
            name: "ApplianceWebTests",
            dependencies: [
                "Accounts", "ApplianceWeb", "ApplianceApp", "ApplianceBase", "ApplianceProtocol", "Engine",
                "FrontEndInterface", "MediaLibrary",
                "Mp4", "ONVIF", "Settings", "TLSIdentity", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "ApplianceApp", "ApplianceBase", "ApplianceProtocol", "ControlSocket", "ButtonsAndLights", "Engine",
                "MediaLibrary", "Mp4", "Supervision", "appliance", "TestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
