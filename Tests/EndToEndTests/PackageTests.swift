import Foundation
import TestSupport
import XCTest

/// The Debian package built by `make deb`, tested by Tests/Package/test_deb.sh: contents, lintian, systemd-analyze
/// verify, install on this machine, the installed binary recording 2 s as the user appliance, an upgrade that keeps
/// a changed config and the data, and a purge that keeps the recordings. The script prints one line per check.
///
/// It installs onto the machine it runs on (as root), and removes everything it made afterwards. It refuses
/// (exit 77, skipped here) where a real installation may be — the package, /var/lib/appliance, /etc/appliance or
/// the user appliance present — unless CI=true or APPLIANCE_PACKAGE_TEST=1; recordings it did not make are set
/// aside and put back, never deleted. Without a built package it is skipped, except in CI (CI=true), where a
/// missing package is a failure: `make test` builds it.
final class PackageTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testDebianPackageInstallsRecordsUpgradesAndPurgesKeepingRecordings() throws {
        let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
        guard let deb = Self.newestPackage() else {
            if inCI { return XCTFail("no .build-deb/appliance_*.deb: `make deb` must run before the tests in CI") }
            throw XCTSkip("no .build-deb/appliance_*.deb (run `make deb`)")
        }
        let script = Self.root.appendingPathComponent("Tests/Package/test_deb.sh").path
        let binary = Self.packagedBinary
        let result = try ProcessOutcome.run("/bin/bash", [script, deb, binary], timeout: 900)
        let output = result.stdout + result.stderr
        print(output)
        if result.status == 77 {
            if inCI { return XCTFail("the package test refused to run in CI:\n\(output)") }
            throw XCTSkip(output.split(separator: "\n").last.map(String.init) ?? "skipped")
        }
        let failed = output.split(separator: "\n").filter { $0.contains("FAIL - ") }.joined(separator: "\n")
        XCTAssertEqual(
            result.status, 0, "Tests/Package/test_deb.sh \(deb) failed:\n\(failed.isEmpty ? output : failed)")
        XCTAssertTrue(output.contains("package-test: all checks passed"), output)
    }

    /// The binary the package was made from, for the upgrade package: `make deb-check`'s (what `make test` packages)
    /// or `make deb`'s release build, whichever was built last.
    private static var packagedBinary: String {
        let builds = [".build-static/debug/appliance", ".build-release/release/appliance"].map {
            root.appendingPathComponent($0).path
        }
        let dated = builds.compactMap { path -> (String, Date)? in
            (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date).map { (path, $0) }
        }
        return dated.max { $0.1 < $1.1 }?.0 ?? builds[1]
    }

    /// The most recently built package in .build-deb/.
    private static func newestPackage() -> String? {
        let folder = root.appendingPathComponent(".build-deb")
        let files =
            (try? FileManager.default.contentsOfDirectory(
                at: folder, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
        return files.filter { $0.lastPathComponent.hasPrefix("appliance_") && $0.pathExtension == "deb" }
            .max { modified($0) < modified($1) }?.path
    }

    private static func modified(_ url: URL) -> Date {
        (try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate) ?? .distantPast
    }
}
