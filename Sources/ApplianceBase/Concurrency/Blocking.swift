import NIOPosix

/// Threads for calls that block: GStreamer state changes (a camera can take seconds to start), fsync, JPEG
/// encoding, file inspection. Never the cooperative pool, which has one thread per core (two here) and would stall
/// every actor while a camera starts; never the global dispatch queue, which grows threads without bound.
package enum BlockingPool {
    package static let shared: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 4)
        pool.start()
        return pool
    }()
}

/// Runs blocking work on `BlockingPool.shared` and returns its result.
package func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await BlockingPool.shared.runIfActive(work)
}
