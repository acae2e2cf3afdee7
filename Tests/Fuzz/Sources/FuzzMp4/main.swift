import Foundation

@testable import Mp4

/// libFuzzer's entry: the bytes are what a crash left on disk as a recording, and they go through what start-up
/// recovery runs on such a file (`Mp4Finishing.finish`: top-level boxes, the first index, every fragment, the index
/// built from them, and compaction of a reserved-index file). Any outcome or thrown error is fine; a trap is a bug.
/// Finishing writes in place, so each input gets a fresh copy of its bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = Scratch.file
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size)) else {
        fatalError("cannot write \(path)")
    }
    if (try? Mp4Finishing.finish(path: path)) != nil {
        // A file recovery wrote is read again at the next start: finishing it must hold too.
        _ = try? Mp4Finishing.finish(path: path)
    }
    return 0
}

/// One file per fuzzing process, on tmpfs when there is one (libFuzzer runs many inputs a second), removed when
/// the process exits normally (a crash leaves it: the input is in libFuzzer's artifact anyway).
enum Scratch {
    static let file: String = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        atexit {
            unlink(Scratch.file)
            unlink(Scratch.file + Mp4Compaction.temporarySuffix)
        }
        return "\(base)/fuzz-mp4-\(ProcessInfo.processInfo.processIdentifier).mp4"
    }()
}
