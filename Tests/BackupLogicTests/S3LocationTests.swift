import AsyncHTTPClient
import Settings
import XCTest

@testable import Backup

/// Where requests go for an `s3://` url: AWS's virtual-hosted style by default, the bucket in the path for a store
/// of one's own, `{device}` in the prefix.
final class S3LocationTests: XCTestCase {
    private func backup(_ url: String, endpoint: String = "", pathStyle: String = "auto", region: String = "us-east-1")
        -> ApplianceConfig.Backup
    {
        var config = ApplianceConfig.Backup()
        config.url = url
        config.endpoint = endpoint
        config.pathStyle = pathStyle
        config.region = region
        config.accessKey = "k"
        return config
    }

    func testAWSIsVirtualHostedForTheRegion() throws {
        let location = try S3Location(
            config: backup("s3://clips/fleet/{device}/", region: "eu-west-1"), device: "van-7")
        XCTAssertEqual(location.origin, "https://clips.s3.eu-west-1.amazonaws.com")
        XCTAssertEqual(location.host, "clips.s3.eu-west-1.amazonaws.com")
        XCTAssertEqual(location.prefix, "fleet/van-7")
        XCTAssertEqual(location.key("2026/11/28/a_1.mp4"), "fleet/van-7/2026/11/28/a_1.mp4")
        XCTAssertEqual(location.requestPath(key: "fleet/x.mp4"), "/fleet/x.mp4")
        XCTAssertEqual(location.requestPath(key: ""), "/")
    }

    func testACustomEndpointPutsTheBucketInThePathAndKeepsItsPort() throws {
        let location = try S3Location(config: backup("s3://clips", endpoint: "http://127.0.0.1:9000"), device: "d")
        XCTAssertTrue(location.pathStyle)
        XCTAssertEqual(location.origin, "http://127.0.0.1:9000")
        XCTAssertEqual(location.host, "127.0.0.1:9000")
        XCTAssertEqual(location.prefix, "")
        XCTAssertEqual(location.key("a.mp4"), "a.mp4")
        XCTAssertEqual(location.requestPath(key: "a.mp4"), "/clips/a.mp4")
        XCTAssertEqual(location.requestPath(key: ""), "/clips")
        let standardPort = try S3Location(config: backup("s3://clips", endpoint: "https://s3.example:443"), device: "d")
        XCTAssertEqual(standardPort.host, "s3.example", "the scheme's own port is not in the Host header")
    }

    func testPathStyleCanBeForcedEitherWayAndADottedBucketIsInThePath() throws {
        XCTAssertFalse(
            try S3Location(config: backup("s3://clips", endpoint: "https://garage.lan", pathStyle: "off"), device: "d")
                .pathStyle)
        XCTAssertTrue(try S3Location(config: backup("s3://clips", pathStyle: "on"), device: "d").pathStyle)
        let dotted = try S3Location(config: backup("s3://my.clips"), device: "d")
        XCTAssertTrue(dotted.pathStyle, "a bucket with dots cannot sit under AWS's wildcard certificate")
        XCTAssertEqual(dotted.origin, "https://s3.us-east-1.amazonaws.com")
    }

    func testNoSecretIsOneClearLineAtStart() async throws {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        for secret in [nil, ""] as [String?] {
            XCTAssertThrowsError(try BackupTargets.make(backup("s3://clips"), http: http, secret: secret)) { error in
                XCTAssertEqual(
                    "\(error)", "no S3 secret key: set backup.secret_key_file (chmod 600) or APPLIANCE_BACKUP_SECRET")
            }
        }
        XCTAssertNoThrow(try BackupTargets.make(backup("s3://clips"), http: http, secret: "s"))
        try await http.shutdown()
    }

    func testTheDeviceNameIsAHostLabel() {
        XCTAssertFalse(S3Location.deviceName.isEmpty)
        XCTAssertFalse(S3Location.deviceName.contains("."))
        XCTAssertFalse(S3Location.deviceName.contains("/"))
    }
}
