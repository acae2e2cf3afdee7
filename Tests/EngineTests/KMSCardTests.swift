import XCTest

@testable import Engine

/// Which DRM card a KMS preview drives, on a made-up /sys/class/drm.
final class KMSCardTests: XCTestCase {
    func testOnlyACardWithConnectorsIsConsideredAndANonDRMNodeNamesNothing() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kms-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let sysfs = root.appendingPathComponent("sys").path
        let dev = root.appendingPathComponent("dri").path
        for entry in ["card0", "card1", "card1-HDMI-A-1", "renderD128", "version"] {
            try FileManager.default.createDirectory(atPath: "\(sysfs)/\(entry)", withIntermediateDirectories: true)
        }
        try FileManager.default.createDirectory(atPath: dev, withIntermediateDirectories: true)
        // card1 (the one with a connector) is a plain file here: not a DRM node, so no name and no option.
        XCTAssertTrue(FileManager.default.createFile(atPath: "\(dev)/card1", contents: Data()))
        XCTAssertNil(KMSCard.driverName(sysfs: sysfs, dev: dev))
        XCTAssertEqual(KMSCard.sinkOptions(sysfs: sysfs, dev: dev), "")
        XCTAssertNil(KMSCard.version(of: "\(dev)/card0"), "no such node")
        XCTAssertEqual(KMSCard.sinkOptions(sysfs: root.appendingPathComponent("absent").path, dev: dev), "")
    }
}
