import ApplianceApp
import ApplianceBase
import ApplianceProtocol
import Foundation
import Settings
import XCTest

@testable import ApplianceWeb

/// Validators (ETag, Last-Modified, 304, If-Range), download names, error statuses and the redacted config.
final class WebMediaAndConfigTests: XCTestCase {
    /// 2023-11-14 22:13:20.123456789 UTC, 1000 bytes.
    private let validators = FileValidators(size: 1000, modifiedNanoseconds: 1_700_000_000_123_456_789)

    func testETagAndLastModified() {
        XCTAssertEqual(validators.etag, "\"3e8-\(String(1_700_000_000_123_456_789, radix: 16))\"")
        XCTAssertEqual(validators.lastModified, "Tue, 14 Nov 2023 22:13:20 GMT")
        XCTAssertEqual(
            validators.modified, Date(timeIntervalSince1970: 1_700_000_000), "whole seconds, as HTTP dates are")
        let touched = FileValidators(size: 1000, modifiedNanoseconds: 1_700_000_000_123_456_790)
        XCTAssertNotEqual(touched.etag, validators.etag, "a nanosecond later is another file")
        XCTAssertNotEqual(
            FileValidators(size: 1001, modifiedNanoseconds: 1_700_000_000_123_456_789).etag, validators.etag)
    }

    func testNotModified() {
        let etag = validators.etag
        let date = validators.lastModified
        XCTAssertTrue(validators.notModified(ifNoneMatch: etag, ifModifiedSince: nil))
        XCTAssertTrue(validators.notModified(ifNoneMatch: "W/\(etag)", ifModifiedSince: nil), "weak comparison")
        XCTAssertTrue(validators.notModified(ifNoneMatch: "\"a\", \(etag)", ifModifiedSince: nil))
        XCTAssertTrue(validators.notModified(ifNoneMatch: "*", ifModifiedSince: nil))
        XCTAssertFalse(validators.notModified(ifNoneMatch: "\"a\"", ifModifiedSince: nil))
        XCTAssertFalse(
            validators.notModified(ifNoneMatch: "\"a\"", ifModifiedSince: date), "If-None-Match wins over the date")
        XCTAssertTrue(validators.notModified(ifNoneMatch: nil, ifModifiedSince: date))
        XCTAssertTrue(validators.notModified(ifNoneMatch: nil, ifModifiedSince: "Wed, 15 Nov 2023 00:00:00 GMT"))
        XCTAssertFalse(validators.notModified(ifNoneMatch: nil, ifModifiedSince: "Tue, 14 Nov 2023 22:13:19 GMT"))
        XCTAssertFalse(validators.notModified(ifNoneMatch: nil, ifModifiedSince: "yesterday"))
        XCTAssertFalse(validators.notModified(ifNoneMatch: nil, ifModifiedSince: nil))
    }

    func testIfRange() {
        XCTAssertTrue(validators.rangeStillValid(ifRange: nil))
        XCTAssertTrue(validators.rangeStillValid(ifRange: validators.etag))
        XCTAssertTrue(validators.rangeStillValid(ifRange: " \(validators.etag) "))
        XCTAssertFalse(validators.rangeStillValid(ifRange: "W/\(validators.etag)"), "strong comparison only")
        XCTAssertFalse(validators.rangeStillValid(ifRange: "\"3e8-0\""))
        XCTAssertTrue(validators.rangeStillValid(ifRange: validators.lastModified))
        XCTAssertFalse(
            validators.rangeStillValid(ifRange: "Wed, 15 Nov 2023 00:00:00 GMT"), "a date must equal Last-Modified")
        XCTAssertFalse(validators.rangeStillValid(ifRange: "Tue, 14 Nov 2023 22:13:19 GMT"))
        XCTAssertFalse(validators.rangeStillValid(ifRange: "garbage"))
        XCTAssertFalse(validators.rangeStillValid(ifRange: ""))
    }

    func testHTTPDates() {
        let date = Date(timeIntervalSince1970: 784_111_777)
        XCTAssertEqual(HTTPDate.format(date), "Sun, 06 Nov 1994 08:49:37 GMT")
        XCTAssertEqual(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"), date)
        XCTAssertEqual(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT"), date, "RFC 850")
        XCTAssertEqual(HTTPDate.parse("Sun Nov  6 08:49:37 1994"), date, "asctime")
        XCTAssertNil(HTTPDate.parse("1994-11-06T08:49:37Z"))
        XCTAssertNil(HTTPDate.parse(""))
    }

    func testDownloadNames() {
        func name(_ title: String) -> String {
            Routes.fileName(
                Recording(
                    id: "0123abcd-0000-4000-8000-000000000000", title: title, createdAt: Date(), path: "/x.mp4",
                    state: .complete))
        }
        XCTAssertEqual(name("Morning run_1"), "Morning_run_1-0123abcd.mp4")
        XCTAssertEqual(name("../../etc/passwd"), "______etc_passwd-0123abcd.mp4")
        XCTAssertEqual(
            name("a\"b\r\nSet-Cookie: x;y\\z"), "a_b_Set-Cookie__x_y_z-0123abcd.mp4", "CR LF is one character")
        XCTAssertEqual(name(String(repeating: "x", count: 200)), String(repeating: "x", count: 60) + "-0123abcd.mp4")
        XCTAssertEqual(name(""), "-0123abcd.mp4")
    }

    func testErrorStatuses() {
        let cases: [(ApplianceError.Code, Int)] = [
            (.badRequest, 400), (.unknownCommand, 404), (.notFound, 404), (.conflict, 409),
            (.busy, 409), (.unavailable, 409), (.rateLimited, 429), (.internalError, 500),
        ]
        for (code, status) in cases {
            let error = WebError(ApplianceError(code, "m"))
            XCTAssertEqual(Int(error.status.code), status, code.rawValue)
            XCTAssertEqual(error.code, code.rawValue, "the socket's code is kept")
            XCTAssertEqual(error.message, "m")
        }
        XCTAssertEqual(WebError(.contentTooLarge, "x").code, "too_large")
        XCTAssertEqual(WebError(.unauthorized, "x").code, "unauthorized")
        XCTAssertEqual(WebError(.forbidden, "x").code, "forbidden")
        XCTAssertEqual(WebError(.notFound, "x").code, "not_found")
    }

    func testConfigViewNamesSecretFilesAndHidesPasswords() throws {
        var config = ApplianceConfig()
        config.backup.url = "https://me:pa55word@cloud.example/dav/"
        config.backup.passwordFile = "/etc/appliance/dav-password"
        config.web.tokenFile = "/etc/appliance/web-token"
        config.web.publicRead = true
        guard case .object(let root) = ConfigView.json(config) else { return XCTFail("an object") }
        guard case .object(let backup)? = root["backup"], case .object(let web)? = root["web"] else {
            return XCTFail("backup and web tables")
        }
        XCTAssertEqual(backup["url"], .string("https://me:***@cloud.example/dav/"))
        XCTAssertEqual(
            backup["password_file"], .string("/etc/appliance/dav-password"),
            "a file holding a secret is named, not read")
        XCTAssertEqual(web["token_file"], .string("/etc/appliance/web-token"))
        XCTAssertEqual(web["public_read"], .bool(true))
        XCTAssertEqual(web["share_hours"], .double(24))
        let text = ConfigView.prettyText(config)
        XCTAssertFalse(text.contains("pa55word"), text)
        XCTAssertTrue(text.contains("\"listen\" : \"127.0.0.1:8080\""), text)

        XCTAssertEqual(ConfigView.redacted("https://cloud.example/dav"), "https://cloud.example/dav")
        XCTAssertEqual(ConfigView.redacted("https://me@cloud.example/dav"), "https://me@cloud.example/dav")
        XCTAssertEqual(ConfigView.redacted("http://me:p%40ss@host:8080/x?y=1"), "http://me:***@host:8080/x?y=1")
        XCTAssertEqual(ConfigView.snakeCase("shareHours"), "share_hours")
        XCTAssertEqual(ConfigView.snakeCase("tokenFile"), "token_file")
        XCTAssertEqual(ConfigView.snakeCase("listen"), "listen")
    }
}
