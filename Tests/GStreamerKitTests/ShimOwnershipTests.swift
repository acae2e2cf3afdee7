import CGStreamer
import CGStreamerShim
import Foundation
import GStreamerKit
import XCTest

/// Who releases a context handed to the shim, on each path (the headers say it: the pipeline once when it is freed,
/// or, when the call answers NULL, the caller). A pipeline camera that cannot be linked to raw video (one ending in an
/// encoder, say) had its context released by the shim and again by `NetworkReceiver`.
final class ShimOwnershipTests: XCTestCase {
    final class Releases: @unchecked Sendable { var count = 0 }

    func testAReceiverThatCannotBeMadeLeavesItsContextToTheCaller() throws {
        GStreamer.initialize()
        let source = try Bin.parse("videotestsrc num-buffers=1 ! jpegenc", name: "cam", label: "test")
        let releases = Releases()
        let context = Unmanaged.passRetained(releases).toOpaque()
        let made = appl_source_receiver_new(source.pointer, nil, nil, context) { context in
            guard let context else { return }
            Unmanaged<Releases>.fromOpaque(context).takeUnretainedValue().count += 1
        }
        XCTAssertNil(made, "JPEG cannot be linked to raw video")
        XCTAssertEqual(
            releases.count, 0,
            "NULL: the context is still the caller's (it was released here, then again by the caller)")
        Unmanaged<Releases>.fromOpaque(context).release()
    }

    func testAReceiverReleasesItsContextOnceWhenFreed() throws {
        GStreamer.initialize()
        let source = try Bin.parse("videotestsrc num-buffers=1", name: "cam", label: "test")
        let releases = Releases()
        let context = Unmanaged.passRetained(releases).toOpaque()
        let made = try XCTUnwrap(
            appl_source_receiver_new(source.pointer, nil, nil, context) { context in
                guard let context else { return }
                Unmanaged<Releases>.fromOpaque(context).takeUnretainedValue().count += 1
            })
        XCTAssertEqual(releases.count, 0)
        gst_object_unref(made)
        XCTAssertEqual(releases.count, 1, "once, when the pipeline is freed")
        Unmanaged<Releases>.fromOpaque(context).release()
    }

    /// The Swift side on that path: a readable error, and the process goes on (it crashed or corrupted memory before).
    func testAPipelineCameraEndingInAnEncoderIsAnErrorNotACrash() throws {
        GStreamer.initialize()
        for _ in 0..<20 {
            let source = try Bin.parse("videotestsrc num-buffers=1 ! jpegenc", name: "cam", label: "test")
            XCTAssertThrowsError(try NetworkReceiver(source: source, target: nil)) { error in
                XCTAssertTrue("\(error)".contains("raw video"), "\(error)")
            }
        }
    }
}
