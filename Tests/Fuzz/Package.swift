// swift-tools-version:6.0
import Foundation
import PackageDescription

/// libFuzzer harnesses for the parsers that read what others wrote (`make fuzz`; README.md says more). A package of
/// its own so that `--sanitize=fuzzer` and its scratch path never touch the main build. The harnesses reach the
/// parsers' `package`-level entry points (Mp4Finishing, UsernameToken) with `@testable import`: this package is
/// built in debug, where SwiftPM compiles every module with testing enabled.
/// The root package by the identity SwiftPM gives a path dependency: its folder's name, in lower case.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "ApplianceFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(path: "../..")],
    targets: [
        .executableTarget(name: "FuzzMp4", dependencies: [.product(name: "Mp4", package: root)]),
        .executableTarget(name: "FuzzConfig", dependencies: [.product(name: "Settings", package: root)]),
        .executableTarget(name: "FuzzSOAP", dependencies: [.product(name: "ONVIF", package: root)]),
    ],
    swiftLanguageModes: [.v6]
)
