import Foundation
import XCTest

@testable import Settings

/// Inputs `make fuzz` (Tests/Fuzz, FuzzConfig) found that crashed the config loader: each is now a syntax error
/// with its line. All three were assertions in toml++ (under TOMLKit) that a debug build aborts on and a release
/// build takes as an assumption (undefined behaviour); `TOMLPrecheck` refuses them before toml++ reads them. The
/// bytes are the fuzzer's own (base64), then the smallest form of each.
final class ConfigFuzzRegressionTests: XCTestCase {
    private func fuzzed(_ base64: String) throws -> String {
        let data = try XCTUnwrap(Data(base64Encoded: base64, options: .ignoreUnknownCharacters))
        return try XCTUnwrap(String(data: data, encoding: .utf8))
    }

    private func assertSyntaxError(
        _ text: String, line: Int, _ words: String, file: StaticString = #filePath, at: UInt = #line
    ) {
        guard let error = configError(text) else { return XCTFail("parsed", file: file, line: at) }
        XCTAssertEqual(error.line, line, "\(error)", file: file, line: at)
        XCTAssertTrue(error.message.contains(words), "\(error)", file: file, line: at)
    }

    /// toml++ `parse_key`: a table header whose key starts with a character no key starts with.
    func testAHeaderWithoutANameIsASyntaxError() throws {
        assertSyntaxError(
            try fuzzed(
                """
                IyBBIGQwCmJpdHJhdGVfa2JwcyA9IDQwMDAKa2V5ZnJhbWVfaW50ZXJ2YWxfcyA9IDEuMAoKW2B1ZGlvXQpzb3VyY2UgPSAiYXVwb2lu
                dHN0byIKCltbY2FtZXJhXV0KbnFtZSA9ICJmcm9udCIKc291cmNlID0gImF1dG8iCmRldmljZSA9ICIvZGV2L3ZpZGVvMCIKCltwcmV2
                aWV3XQpzaW5rID0gIm5vbmUiCgpbcmVjb3JkaW5nXQpbb2JqZWNpb25dAAAAAAAAAAAAAAAAW3JbPSIgbmUsdF9jYW1lYGEiZWNvbGxs
                cmF0aGVyIHRoYW4KIyB0aGUgZGFqaGNhbSBzdG9wcGluZyAoY29uc3VtZXIgZGFzaGNhbXMgZG8gdGhpcyAiAGxlbnRseTsgaGVyZSBl
                dmVyeSBkZWxldGlvbiBpcyBhbiBldmVudCBhbmQgYSBsb2cgbGkuZSluCm1heF9sb2NrZWRfcGVyYwprZXlmcmFtZV9pbnRlcnZhbF9z
                ID0gMS4wCiIiInVkaW9dCnNvdXJjZSA9ICJhdXRvbnN1bWVyIGRhc2hjYW1zIGRvIHRoaXMgc2lsZW50bHk7IGhlcmUgZXZlcmQgeWVs
                ZXRpb24gaXMgYW4gZXZlbnQgYW5kIGEgbG9nIGxpbmUpLgptYXhfbG9ja2VkX3BlcmNlbnQgPSAyNS4wCm9uX2Z1bGwgPSAib3Zlcndy
                aXRlX29sZGVzbWVfaW50ZXJ2YWxfcyA9IDEuMAoKW2F1ZGlvXQpzb3VyY2UgPSAiYXV0b25zdW1lciBkYXNoY2FtcyBkbyB0aGlzIHNp
                bGVudGx5OyBoZXJlIGV2ZXJkIXllbGV0aW9uIGlzIGFuIGV2ZW50IGFuZCBhIGxvZyBsaW5lKS4KbWF4X2xvY2tlZF9wZXJjZW50ID0g
                MjUuMApvbl9mdWxsID0gIm92ZXJ3cml0ZV9vbGRlc3RfbG8ja2VkIgo=
                """), line: 5, "a table header needs a name")
        assertSyntaxError("[`", line: 1, "a table header needs a name")
        assertSyntaxError("a = 1\n[[ ~x]]", line: 2, "a table header needs a name")
    }

    /// toml++ `parse_time`: a date, `T`, and no time.
    func testADateWithATButNoTimeIsASyntaxError() throws {
        assertSyntaxError(
            try fuzzed(
                """
                W21vdGlvbl0KZW5hYmxlZCA9IHRydWUKem9uZXMgPSBbeyBuYW1lID0gImRvb3IiLCBwb2ludHMgPSBbWzAuNSwxOTc5LTA1LTI3VCE3
                OjNbb2JqZWN0c11bMV1dIH1dCgpbb2JqZWN0c10Kem9uZXMgPSBbImRvbyBkICNBYTpoY2FtOiByZWNvcmRzIGZyIl0KCltbaW5wdXRd
                cm8=
                """), line: 3, "needs the time after its T")
        assertSyntaxError("a = 1979-05-27T!7", line: 1, "needs the time after its T")
    }

    /// toml++ `parse_value`: a `}` where an array expects a value.
    func testAnArrayClosedByABraceIsASyntaxError() throws {
        assertSyntaxError(
            try fuzzed(
                """
                W21vdGlvbl0KZW5hYmxlZCA9IHRydWUKem9uZXMgPSBbeyBuYW1lID0gImRvb3IiLCBwb2ludHMgPSBbWzAuNSwgMF0sIFsxLCAwXSwg
                WzEsIDFdLCBbMC41LH1dICBdXTEKCltvYmplY3RzXQp6b25lcyA9IFsiZG9vciJdCgpbW2lucHV0XV0Ka2luZCA9ICJldmRldiIKZGV2
                aWNlID0gIi9kZXYvaVtbY2FtZXJhXV1ucHV0L2J5LWlvY2hpYWN0aW9ucDAiCmxpbmUgPSAxMwphY3RpdmVfbG93ID0gZmFsc2UKcm9s
                ZSA9ICJyZWNvcmRpbmciCg==
                """), line: 3, "an array closed by }")
        assertSyntaxError("a = [1,}]", line: 1, "an array closed by }")
    }

    /// What the checks look for is not refused inside strings, comments and multi-line arrays.
    func testValidTOMLPassesThePrecheck() {
        let text = #"""
            # [` in a comment
            a = "[`"
            b = '''
            [`
            1979-05-27T!
            '''
            c = """
            [1,}] \""" \\
            """
            d = [
              [1, 2],
              [ "x" ],
              { name = "z" },
            ]
            e = 1979-05-27T07:32:00Z
            f = 1979-05-27 # a date
            [ "quoted header" ]
            [[_list]]
            """#
        XCTAssertNil(TOMLPrecheck.problem(in: text).map { "\($0)" })
    }
}
