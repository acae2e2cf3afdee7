import ServiceLifecycle

/// Runs a service's two loops side by side until graceful shutdown, or until one of them ends; then the other is
/// cancelled. (Structured: nothing is kept to cancel by hand.)
package func runSideBySide(
    _ first: @escaping @Sendable () async -> Void, _ second: @escaping @Sendable () async -> Void
) async {
    await cancelWhenGracefulShutdown {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await first() }
            group.addTask { await second() }
            await group.next()
            group.cancelAll()
        }
    }
}
