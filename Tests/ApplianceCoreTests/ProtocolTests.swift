import ApplianceCore
import Foundation
import XCTest

final class ProtocolTests: XCTestCase {
    private func code(_ line: String) -> ControlError.Code? {
        do {
            _ = try Request.parse(Data(line.utf8))
            return nil
        } catch {
            return (error as? ControlError)?.code
        }
    }

    func testRequestsParse() throws {
        let request = try Request.parse(Data(#"{"id": 3, "command": "record.start", "args": {"title": "x"}}"#.utf8))
        XCTAssertEqual(request.command, "record.start")
        XCTAssertEqual(try request.string("title"), "x")
        XCTAssertEqual(request.id as? Int, 3)
        XCTAssertNoThrow(try request.allowOnly(["title"]))
        XCTAssertThrowsError(try request.allowOnly([]))
    }

    func testMalformedRequestsAreBadRequests() {
        for line in ["", "nope", "[]", "42", #"{"command": null}"#, #"{"command": 1}"#, #"{"command": "x", "args": []}"#] {
            XCTAssertEqual(code(line), .badRequest, line)
        }
        XCTAssertThrowsError(try Request.parse(Data(#"{"command": "a", "args": {"title": 1}}"#.utf8)).string("title"))
    }

    func testResponsesAreOneLineOfJSON() throws {
        let ok = Response.success(id: "a", result: ["path": "/x/y"])
        XCTAssertEqual(ok.last, UInt8(ascii: "\n"))
        XCTAssertEqual(ok.filter { $0 == UInt8(ascii: "\n") }.count, 1)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: ok) as? [String: Any])
        XCTAssertEqual(object["ok"] as? Bool, true)
        XCTAssertEqual((object["result"] as? [String: String])?["path"], "/x/y")
        let failure = try XCTUnwrap(try JSONSerialization.jsonObject(with: Response.failure(id: nil, error: ControlError(.busy, "wait"))) as? [String: Any])
        XCTAssertEqual((failure["error"] as? [String: String])?["code"], "busy")
        XCTAssertTrue(failure["id"] is NSNull)
    }
}
