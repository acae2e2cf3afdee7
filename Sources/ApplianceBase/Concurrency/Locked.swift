import Synchronization

/// A Mutex in a class, so closures (probe callbacks) can share it.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    public init(_ value: Value) { mutex = Mutex(value) }

    @discardableResult
    public func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        try mutex.withLock { (value: inout Value) throws(E) -> R in try body(&value) }
    }
}

/// An atomic counter in a class, so a probe callback can count without taking a lock.
package final class Counter: Sendable {
    private let atomic = Atomic<UInt64>(0)
    package init() {}
    package func increment() { atomic.add(1, ordering: .relaxed) }
    package var value: UInt64 { atomic.load(ordering: .relaxed) }
}
