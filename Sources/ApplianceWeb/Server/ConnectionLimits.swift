import ApplianceBase
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// What one client, and all of them together, may hold of the dashboard's connections, and how long an idle one
/// stays. 1,100 connections that send nothing took the dashboard down at systemd's file limit (1024); now every
/// connection past a cap is closed as soon as it is accepted (its descriptor freed at once), and one that sends
/// no request within `idleTimeout` (a slowloris header, a stalled TLS handshake, a kept-alive socket left open) is
/// closed. A request's body must arrive within `bodyTimeout` (slow-body attacks).
struct ConnectionLimits: Sendable {
    var perClient = 32
    var total = 512
    var idleTimeout = TimeAmount.seconds(15)
    var bodyTimeout = Duration.seconds(10)

    static let standard = ConnectionLimits()
}

/// Open connections per client address, against `ConnectionLimits`.
final class ConnectionCounter: Sendable {
    let limits: ConnectionLimits
    private let open = Locked<(total: Int, byClient: [String: Int])>((0, [:]))

    init(limits: ConnectionLimits) { self.limits = limits }

    /// Counts a new connection; false (not counted) when the client or the server is at its cap.
    func admit(_ client: String) -> Bool {
        open.withLock { open in
            guard open.total < limits.total, open.byClient[client, default: 0] < limits.perClient else { return false }
            open.total += 1
            open.byClient[client, default: 0] += 1
            return true
        }
    }

    func release(_ client: String) {
        open.withLock { open in
            open.total -= 1
            let left = open.byClient[client, default: 1] - 1
            open.byClient[client] = left > 0 ? left : nil
        }
    }

    var total: Int { open.withLock { $0.total } }
}

/// A server child channel (plain HTTP/1.1 or `HTTPSChannel`) behind the connection caps: a connection over a cap
/// is closed before anything is read from it.
struct LimitedChannel<Inner: HTTPChannelHandler>: HTTPChannelHandler {
    typealias Value = Inner.Value
    let inner: Inner
    let counter: ConnectionCounter

    var responder: HTTPChannelHandler.Responder { inner.responder }

    struct Refused: Error {}

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let client = channel.remoteAddress?.ipAddress ?? "unknown"
        guard counter.admit(client) else {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(Refused())
        }
        channel.closeFuture.whenComplete { [counter] _ in counter.release(client) }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async { await inner.handle(value: value, logger: logger) }
}
