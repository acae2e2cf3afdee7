import Foundation
import XCTest

@testable import SigV4

/// The signer against AWS's published Signature Version 4 test suite (AWSSigV4TestSuite.swift): for every case, the
/// canonical request, the string to sign and the signature are the suite's, byte for byte.
final class SigV4SignerTests: XCTestCase {
    private static let credentials = SigV4Credentials(
        accessKey: "AKIDEXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    private static let date = ISO8601DateFormatter().date(from: "2015-08-30T12:36:00Z")!

    /// A request as the suite writes it (`request.txt`): the request line (its target may hold spaces), headers
    /// (a line that starts with white space continues the one before), a blank line and the body.
    private static func parse(_ text: String) -> (request: SigV4Request, body: Data) {
        let (head, body): (Substring, Substring) = {
            guard let range = text.range(of: "\n\n") else { return (Substring(text), "") }
            return (text[..<range.lowerBound], text[range.upperBound...])
        }()
        var lines = head.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst()
        let method = String(requestLine.prefix { $0 != " " })
        let target = String(
            requestLine.dropFirst(method.count + 1).prefix(
                upTo: requestLine.dropFirst(method.count + 1).range(of: " HTTP/")!.lowerBound))
        var headers: [(name: String, value: String)] = []
        for line in lines where !line.isEmpty {
            if line.first == " " || line.first == "\t", !headers.isEmpty {
                headers[headers.count - 1].value += "\n" + line
            } else if let colon = line.firstIndex(of: ":") {
                headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
            }
        }
        let (path, query) =
            target.firstIndex(of: "?").map { (String(target[..<$0]), String(target[target.index(after: $0)...])) } ?? (
                target, ""
            )
        let data = Data(body.utf8)
        return (
            SigV4Request(
                method: method, path: path, query: query, headers: headers, payloadHash: SigV4Signer.sha256(data)), data
        )
    }

    func testEveryCaseOfAWSsTestSuite() {
        XCTAssertGreaterThanOrEqual(AWSSigV4Vector.all.count, 30)
        for vector in AWSSigV4Vector.all {
            var credentials = Self.credentials
            credentials.sessionToken = vector.sessionToken
            let signer = SigV4Signer(
                credentials: credentials, region: "us-east-1", service: "service", normalizePath: vector.normalize)
            let (request, _) = Self.parse(vector.request)
            let signed = signer.sign(request, date: Self.date, signBody: vector.signBody)
            XCTAssertEqual(signed.canonicalRequest, vector.canonicalRequest, vector.name)
            XCTAssertEqual(signed.stringToSign, vector.stringToSign, vector.name)
            XCTAssertEqual(signed.signature, vector.signature, vector.name)
            XCTAssertTrue(signed.headers.last?.value.hasSuffix("Signature=\(vector.signature)") ?? false, vector.name)
        }
    }

    /// S3's rules: an object key is signed as it is (no dot segments resolved, slashes kept), each byte outside the
    /// unreserved set percent-encoded once, and what is sent is what was signed.
    func testAnS3KeyIsEncodedOnceAndSentAsSigned() {
        let signer = SigV4Signer(credentials: Self.credentials, region: "eu-west-1")
        let request = SigV4Request(
            method: "PUT", path: "/bucket/2026/11/28/Café & bar ./x_1.mp4", query: "partNumber=2&uploadId=a%2Fb",
            headers: [("Host", "s3.example.com")], payloadHash: SigV4Signer.unsignedPayload)
        XCTAssertEqual(
            signer.encodedTarget(request),
            "/bucket/2026/11/28/Caf%C3%A9%20%26%20bar%20./x_1.mp4?partNumber=2&uploadId=a%2Fb")
        let headers = signer.signingHeaders(for: request, date: Self.date)
        XCTAssertEqual(headers.map(\.name), ["X-Amz-Date", "x-amz-content-sha256", "Authorization"])
        XCTAssertEqual(headers[1].value, "UNSIGNED-PAYLOAD")
        XCTAssertTrue(
            headers[2].value.hasPrefix(
                "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/eu-west-1/s3/aws4_request, "
                    + "SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature="), headers[2].value)
    }
}
