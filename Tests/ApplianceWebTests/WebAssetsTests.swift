import Foundation
import XCTest

@testable import ApplianceWeb

/// The stylesheet and the script are files in the repository, compiled in: what the dashboard serves is those
/// files byte for byte, with their types.
final class WebAssetsTests: XCTestCase {
    func testTheServedAssetsAreTheFilesInResources() async throws {
        let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/ApplianceWeb/Resources")
        let web = try WebHarness()
        try await web.test { client in
            for (path, file, type) in [
                ("/assets/app.css", "app.css", "text/css"), ("/assets/app.js", "app.js", "text/javascript"),
            ] {
                let answer = try await client.request(path, auth: false)
                XCTAssertEqual(answer.status, .ok, path)
                XCTAssertTrue(answer.header("Content-Type")?.hasPrefix(type) == true, path)
                let onDisk = try Data(contentsOf: resources.appendingPathComponent(file))
                XCTAssertGreaterThan(onDisk.count, 1000, file)
                XCTAssertEqual(answer.data, onDisk, "\(path) is \(file) as it is in the repository")
            }
        }
    }
}
