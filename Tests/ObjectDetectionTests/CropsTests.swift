import MotionAndSound
import XCTest

@testable import ObjectDetection

/// The pictures a detector is given around motion: padded, at least its window, inside the frame, merged.
final class CropsTests: XCTestCase {
    func testARegionGrowsByItsPaddingAndToTheWindow() {
        // 10 % x 20 % of a 1280x720 frame at its centre: 128x144 → padded by a quarter on each side: 192x216.
        let crops = Crops.plan([.init(x: 0.45, y: 0.4, width: 0.1, height: 0.2)], frameWidth: 1280, frameHeight: 720)
        XCTAssertEqual(crops, [Crop(x: 544, y: 252, width: 192, height: 216)])
        // A speck of motion still gets a window HOG can use (64x128).
        XCTAssertEqual(
            Crops.plan([.init(x: 0.5, y: 0.5, width: 0.001, height: 0.001)], frameWidth: 1280, frameHeight: 720),
            [Crop(x: 608, y: 296, width: 64, height: 128)])
    }

    func testCropsStayInsideTheFrameAndMergeWhenTheyOverlap() {
        // At the corner: moved in, not cut.
        XCTAssertEqual(
            Crops.plan([.init(x: 0.95, y: 0.9, width: 0.05, height: 0.1)], frameWidth: 640, frameHeight: 360),
            [Crop(x: 576, y: 232, width: 64, height: 128)])
        // Two regions of one walking person (head and legs) overlap once padded: one crop around both; a third far
        // away stays apart.
        let crops = Crops.plan(
            [
                .init(x: 0.2, y: 0.2, width: 0.1, height: 0.2), .init(x: 0.2, y: 0.45, width: 0.1, height: 0.2),
                .init(x: 0.8, y: 0.1, width: 0.05, height: 0.1),
            ], frameWidth: 1280, frameHeight: 720)
        XCTAssertEqual(crops.count, 2, "\(crops)")
        XCTAssertTrue(crops.contains { $0.x <= 256 && $0.y <= 144 && $0.y + $0.height >= 468 }, "\(crops)")
        // A region larger than the frame once padded is the whole frame.
        XCTAssertEqual(
            Crops.plan([.init(x: 0, y: 0, width: 1, height: 1)], frameWidth: 320, frameHeight: 240),
            [Crop(x: 0, y: 0, width: 320, height: 240)])
        // Nonsense in, nothing out.
        XCTAssertEqual(
            Crops.plan(
                [.init(x: .nan, y: 0, width: 0.1, height: 0.1), .init(x: 0, y: 0, width: 0, height: 0.1)],
                frameWidth: 320, frameHeight: 240), [])
    }
}

/// Cutting a crop out of a gray picture: the rows of the crop, clamped to the picture.
final class GrayFrameCropTests: XCTestCase {
    func testACropHoldsItsPixelsAndStaysInsideThePicture() throws {
        let frame = GrayFrame(width: 8, height: 4, pixels: (0..<32).map(UInt8.init))!
        let inner = try XCTUnwrap(frame.cropped(to: Crop(x: 2, y: 1, width: 3, height: 2)))
        XCTAssertEqual([inner.width, inner.height], [3, 2])
        XCTAssertEqual(inner.pixels, [10, 11, 12, 18, 19, 20])
        let edge = try XCTUnwrap(frame.cropped(to: Crop(x: 6, y: 3, width: 5, height: 5)))
        XCTAssertEqual([edge.width, edge.height], [2, 1], "clamped")
        XCTAssertEqual(edge.pixels, [30, 31])
        XCTAssertNil(frame.cropped(to: Crop(x: 9, y: 0, width: 2, height: 2)), "outside")
    }
}

/// Pictures as the objects branch hands them over: rows padded to four bytes unpacked, colour cropped whole, gray
/// from colour as OpenCV weighs it.
final class PictureTests: XCTestCase {
    func testPaddedRowsColourCropsAndGray() throws {
        // 3x2 BGR: a row is 9 bytes, GStreamer pads it to 12.
        let padded: [UInt8] = [
            0, 0, 255, 0, 255, 0, 255, 0, 0, 9, 9, 9,
            10, 20, 30, 40, 50, 60, 70, 80, 90, 9, 9, 9,
        ]
        let picture = try XCTUnwrap(Picture(width: 3, height: 2, channels: 3, buffer: padded))
        XCTAssertEqual(picture.pixels, [0, 0, 255, 0, 255, 0, 255, 0, 0, 10, 20, 30, 40, 50, 60, 70, 80, 90])
        XCTAssertNil(Picture(width: 3, height: 2, channels: 3, buffer: [1, 2, 3]), "neither packed nor padded")
        let crop = try XCTUnwrap(picture.cropped(to: Crop(x: 1, y: 1, width: 5, height: 5)))
        XCTAssertEqual([crop.width, crop.height, crop.channels], [2, 1, 3])
        XCTAssertEqual(crop.pixels, [40, 50, 60, 70, 80, 90])
        // Red, green, blue: 0.299, 0.587, 0.114 of 255.
        XCTAssertEqual(Array(picture.gray.pixels.prefix(3)), [76, 150, 29])
    }
}

/// `[objects] zones`: an object counts where it stands (the bottom centre of its box), not wherever its box reaches.
final class ObjectZonesTests: XCTestCase {
    func testAnObjectCountsWhereItStands() throws {
        let door = try XCTUnwrap(RelativePolygon([.init(0.5, 0.5), .init(1, 0.5), .init(1, 1), .init(0.5, 1)]))
        let zones = ObjectZones([door])
        // 200x100 picture: a person whose feet are at (150, 90) is in the door zone; one whose box reaches into it
        // from above but stands at (150, 40) is not; nor one standing at (50, 90).
        let inside = ObjectDetection(label: "person", score: 1, x: 140, y: 50, width: 20, height: 40)
        let above = ObjectDetection(label: "person", score: 1, x: 140, y: 0, width: 20, height: 40)
        let left = ObjectDetection(label: "person", score: 1, x: 40, y: 50, width: 20, height: 40)
        XCTAssertTrue(zones.keeps(inside, width: 200, height: 100))
        XCTAssertFalse(zones.keeps(above, width: 200, height: 100))
        XCTAssertFalse(zones.keeps(left, width: 200, height: 100))
        XCTAssertTrue(ObjectZones([]).keeps(left, width: 200, height: 100), "no zones: the whole picture")
    }
}
