import Synchronization

/// What the fragmented recording files of this daemon have written so far, across all of them (metrics): whole
/// fragments, the fsyncs asked after them, `moof`s whose track start could not be written, and keyframes indexed as
/// ordinary frames (KeyframePacer).
package final class FragmentCounters: Sendable {

    package init() {
    }
    private let fragmentsTotal = Atomic<Int>(0)
    private let syncsTotal = Atomic<Int>(0)
    private let unpatchedTotal = Atomic<Int>(0)
    private let unindexedKeyframesTotal = Atomic<Int>(0)

    package var fragments: Int { fragmentsTotal.load(ordering: .relaxed) }
    package var syncs: Int { syncsTotal.load(ordering: .relaxed) }
    package var unpatched: Int { unpatchedTotal.load(ordering: .relaxed) }
    /// Keyframes an encoder made sooner than `sync_interval_s` after the one before, indexed as ordinary frames.
    package var unindexedKeyframes: Int { unindexedKeyframesTotal.load(ordering: .relaxed) }

    func addUnindexedKeyframe() { unindexedKeyframesTotal.add(1, ordering: .relaxed) }

    /// Adds what one buffer's action reports (called on the filesink's streaming thread: atomics only).
    package func add(_ action: FragmentStreamWatch.Action) {
        if action.completedFragments > 0 { fragmentsTotal.add(action.completedFragments, ordering: .relaxed) }
        if action.syncAfter { syncsTotal.add(1, ordering: .relaxed) }
        if action.unpatchedMoofs > 0 { unpatchedTotal.add(action.unpatchedMoofs, ordering: .relaxed) }
    }
}
