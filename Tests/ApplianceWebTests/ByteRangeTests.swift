import XCTest

@testable import ApplianceWeb

/// RFC 9110 range rules on a file of 1000 bytes, one by one.
final class ByteRangeTests: XCTestCase {
    func testSingleRanges() {
        XCTAssertEqual(ByteRange(header: "bytes=0-1", size: 1000), .part(first: 0, last: 1))  // Safari's probe
        XCTAssertEqual(ByteRange(header: "bytes=10-19", size: 1000), .part(first: 10, last: 19))
        XCTAssertEqual(ByteRange(header: "bytes=990-5000", size: 1000), .part(first: 990, last: 999))  // end clamped
        XCTAssertEqual(ByteRange(header: "bytes=999-999", size: 1000), .part(first: 999, last: 999))
    }

    func testOpenEndedAndSuffix() {
        XCTAssertEqual(ByteRange(header: "bytes=100-", size: 1000), .part(first: 100, last: 999))
        // the last 10, not the first 11
        XCTAssertEqual(ByteRange(header: "bytes=-10", size: 1000), .part(first: 990, last: 999))
        XCTAssertEqual(ByteRange(header: "bytes=-5000", size: 1000), .part(first: 0, last: 999))  // the whole file
    }

    func testUnsatisfiable() {
        XCTAssertEqual(ByteRange(header: "bytes=1000-", size: 1000), .unsatisfiable)
        XCTAssertEqual(ByteRange(header: "bytes=1000-2000", size: 1000), .unsatisfiable)
        XCTAssertEqual(ByteRange(header: "bytes=-0", size: 1000), .unsatisfiable)
        XCTAssertEqual(ByteRange(header: "bytes=0-", size: 0), .unsatisfiable)
    }

    func testWhatIsNotUnderstoodIsIgnored() {
        XCTAssertEqual(ByteRange(header: nil, size: 1000), .whole)
        XCTAssertEqual(ByteRange(header: "items=0-1", size: 1000), .whole)
        XCTAssertEqual(ByteRange(header: "bytes=5-2", size: 1000), .whole)
        XCTAssertEqual(ByteRange(header: "bytes=0-1,5-6", size: 1000), .whole)
        XCTAssertEqual(ByteRange(header: "bytes=a-b", size: 1000), .whole)
        XCTAssertEqual(ByteRange(header: "bytes=-", size: 1000), .whole)
        XCTAssertEqual(ByteRange(header: "bytes=+1-2", size: 1000), .whole)
    }

    func testValidators() {
        let file = FileValidators(size: 1000, modifiedNanoseconds: 1_700_000_000_123_456_789)
        XCTAssertTrue(file.notModified(ifNoneMatch: file.etag, ifModifiedSince: nil))
        XCTAssertTrue(file.notModified(ifNoneMatch: "\"x\", W/\(file.etag)", ifModifiedSince: nil))
        XCTAssertFalse(file.notModified(ifNoneMatch: "\"other\"", ifModifiedSince: file.lastModified))  // the tag wins
        XCTAssertTrue(file.notModified(ifNoneMatch: nil, ifModifiedSince: file.lastModified))
        XCTAssertFalse(file.notModified(ifNoneMatch: nil, ifModifiedSince: "Sun, 06 Nov 1994 08:49:37 GMT"))
        XCTAssertTrue(file.rangeStillValid(ifRange: nil))
        XCTAssertTrue(file.rangeStillValid(ifRange: file.etag))
        XCTAssertTrue(file.rangeStillValid(ifRange: file.lastModified))
        XCTAssertFalse(file.rangeStillValid(ifRange: "W/" + file.etag))  // If-Range compares strongly
        XCTAssertFalse(file.rangeStillValid(ifRange: "\"other\""))
        XCTAssertFalse(file.rangeStillValid(ifRange: "Sun, 06 Nov 1994 08:49:37 GMT"))
    }
}
