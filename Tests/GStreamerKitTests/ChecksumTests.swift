import GStreamerKit
import XCTest

/// GLib's digests against the FIPS 180 examples ("abc" and the 448-bit message), fed whole and in pieces.
final class ChecksumTests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testKnownAnswers() {
        XCTAssertEqual(hex(Checksum.hash(.sha1, "abc".utf8)), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(
            hex(Checksum.hash(.sha256, "abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            hex(Checksum.hash(.sha256, [UInt8]())), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        var pieces = Checksum(.sha1)
        for chunk in stride(from: 0, to: message.utf8.count, by: 7) {
            pieces.update(Array(message.utf8)[chunk..<min(chunk + 7, message.utf8.count)])
        }
        let digest = pieces.finalize()
        XCTAssertEqual(hex(digest), "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }
}
