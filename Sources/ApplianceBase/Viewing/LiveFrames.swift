import Foundation

/// One JPEG of the live picture, shared by every viewer.
public struct LiveFrame: Sendable {
    public let jpeg: [UInt8]
    /// When the frame was captured (its running time mapped to the wall clock).
    public let capturedAt: Date
    public let sequence: UInt64

    public init(jpeg: [UInt8], capturedAt: Date, sequence: UInt64) {
        (self.jpeg, self.capturedAt, self.sequence) = (jpeg, capturedAt, sequence)
    }
}

/// What a front end may do with the live picture: watch its frames and stop watching. The engine's `LiveView`
/// encodes only while someone watches; front ends see this protocol, never the live graph.
public protocol LiveFrames: Sendable {
    /// Open streams.
    var viewerCount: Int { get }
    /// A stream of frames until `stop(id)` (or the stream is dropped); a slow viewer skips frames.
    func watch() -> (id: UInt64, frames: AsyncStream<LiveFrame>)
    func stop(_ id: UInt64)
}
