// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "appliance",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "appliance", targets: ["appliance"]),
        .library(name: "GStreamerKit", targets: ["GStreamerKit"]),
        .library(name: "ApplianceProtocol", targets: ["ApplianceProtocol"]),
        .library(name: "ApplianceCore", targets: ["ApplianceCore"]),
        .library(name: "ApplianceWeb", targets: ["ApplianceWeb"]),
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
    ],
    targets: [
        .systemLibrary(
            name: "CGStreamer",
            pkgConfig: "gstreamer-1.0 gstreamer-app-1.0 gstreamer-video-1.0 gstreamer-pbutils-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),
        .systemLibrary(
            name: "CGstRTSPServer",
            pkgConfig: "gstreamer-rtsp-server-1.0",
            providers: [.apt(["libgstrtspserver-1.0-dev"])]
        ),
        .systemLibrary(
            name: "CGstWebRTC",
            pkgConfig: "gstreamer-webrtc-1.0 gstreamer-sdp-1.0",
            providers: [.apt(["libgstreamer-plugins-bad1.0-dev"])]
        ),
        /// libxml2, for reading SOAP: Foundation's XMLParser (under every Swift XML package here) traps on some
        /// malformed documents (an unbound prefix, bytes that are not UTF-8), which a network peer must not be able to send.
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
        /// One thin C target per concern: GStreamer's varargs and macros, JPEG with libjpeg, the RTSP server, a WebRTC viewer, input devices' ioctls,
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
        .target(
            name: "ApplianceCore",
            dependencies: [
                "GStreamerKit",
                "ApplianceProtocol",
                "CLinuxInput",
                "SystemCalls",
                "MQTTKit",
                "CXML",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]
        ),
        /// The web dashboard and HTTP API: a front end like the socket, calling the same commands.
        .target(
            name: "ApplianceWeb",
            dependencies: [
                "ApplianceCore",
                "ApplianceProtocol",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "appliance",
            dependencies: [
                "ApplianceCore",
                "ApplianceWeb",
                "ApplianceProtocol",
                "SystemCalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        /// What the test targets that run real tools share (`ProcessOutcome`, `Process.finish(within:)`).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "GStreamerKitTests", dependencies: ["GStreamerKit", "TestSupport"]),
        .testTarget(name: "SystemCallsTests", dependencies: ["SystemCalls"]),
        .testTarget(name: "ApplianceProtocolTests", dependencies: ["ApplianceProtocol"]),
        .testTarget(name: "ApplianceCoreTests", dependencies: ["ApplianceCore", "ApplianceProtocol", "CLinuxInput", "SystemCalls", "TestSupport"]),
        .testTarget(name: "ApplianceWebTests", dependencies: [
            "ApplianceWeb", "ApplianceCore", "ApplianceProtocol", "TestSupport",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ]),
        .testTarget(name: "EndToEndTests", dependencies: ["ApplianceCore", "ApplianceProtocol", "appliance", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
