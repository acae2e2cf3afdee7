import ApplianceBase
import Foundation
import FrontEndInterface
import HTTPTypes
import Hummingbird

/// `/live.mjpeg`: the live picture as multipart JPEG (what an `<img>` shows as video in every browser). Frames come
/// from the live branch, which encodes only while at least one such stream is open. Each part carries
/// `X-Capture-Time` (ms since 1970) so latency can be measured at the receiver. `?channel=NAME`: that channel's
/// picture (none: the first's).
extension Routes {
    static let boundary = "appliance-frame"

    func addLive(to router: GuardedRouter) {
        router.get("live.mjpeg") { request, _ -> Response in
            let live = try self.liveChannel(request).live
            let streams = self.streams
            let (id, frames) = live.watch()
            let registration = streams.register { live.stop(id) }
            let body = ResponseBody { writer in
                defer {
                    live.stop(id)
                    streams.unregister(registration)
                }
                for await frame in frames {
                    var part = ByteBuffer()
                    part.writeString(
                        "--\(Self.boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(frame.jpeg.count)\r\n")
                    part.writeString(
                        "X-Capture-Time: \(Int64((frame.capturedAt.timeIntervalSince1970 * 1000).rounded()))\r\n")
                    part.writeString("X-Sequence: \(frame.sequence)\r\n\r\n")
                    part.writeBytes(frame.jpeg)
                    part.writeString("\r\n")
                    try await writer.write(part)
                }
                try await writer.finish(nil)
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "multipart/x-mixed-replace; boundary=\(Self.boundary)",
                    .cacheControl: "no-store", HTTPField.Name("X-Accel-Buffering")!: "no",
                ], body: body)
        }
    }

    /// The channel whose live picture a request asks for (`?channel=NAME`, none: the first); 400 naming the
    /// channels for a name that is none of them.
    func liveChannel(_ request: Request) throws -> LiveChannels.Channel {
        let channels = context.channels
        return channels.channel(try Self.channel(request, among: channels.names)) ?? channels.all[0]
    }
}
