import Foundation
import XCTest

@testable import Mp4

/// Files one range video may join: sample descriptions that differ only in the bitrates they state (mp4mux writes
/// each file's own in `btrt` and `esds`) are the same; another codec configuration is not.
final class Mp4MovieTests: XCTestCase {
    private static func bytes(_ hex: String) -> Data {
        Data(
            stride(from: 0, to: hex.count, by: 2).map { i in
                let start = hex.index(hex.startIndex, offsetBy: i)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            })
    }

    func testBitratesAreIgnoredAndTheCodecConfigurationIsNot() {
        // An avc1 entry's btrt box (buffer size, max and average bitrate) as two gst-launch runs wrote it.
        let btrtA = Self.bytes("000000146274727400000000002000000002786d")
        let btrtB = Self.bytes("00000014627472740000000000200000000277ae")
        XCTAssertNotEqual(btrtA, btrtB)
        XCTAssertEqual(Mp4Movie.withoutBitrates(btrtA), Mp4Movie.withoutBitrates(btrtB))
        // An mp4a entry's esds: ES_Descriptor, DecoderConfigDescriptor (AAC, bitrates 0x146a9 / 0x1136b),
        // AudioSpecificConfig 1188.
        let esds = "0000002a6573647300000000031c000200041440150000000001%@0001136b0505118856e500060102"
        let (low, high) = (
            Self.bytes(esds.replacingOccurrences(of: "%@", with: "46a9")),
            Self.bytes(esds.replacingOccurrences(of: "%@", with: "ffff"))
        )
        XCTAssertEqual(Mp4Movie.withoutBitrates(low), Mp4Movie.withoutBitrates(high))
        let otherConfig = Self.bytes(
            esds.replacingOccurrences(of: "%@", with: "46a9").replacingOccurrences(of: "1188", with: "1190"))
        XCTAssertNotEqual(
            Mp4Movie.withoutBitrates(low), Mp4Movie.withoutBitrates(otherConfig),
            "another sample rate is another stream")
    }
}
