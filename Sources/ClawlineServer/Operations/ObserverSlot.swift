import NIOConcurrencyHelpers

/// One callback, set once the server's metrics exist and called from any thread (a store's
/// commits, the cluster bus's notifications).
///
/// The callback is kept inside a struct. A function value stored directly in a generic box
/// (`NIOLockedValueBox<((Int) -> Void)?>`) is converted to the box's generic form and back on
/// every `withLockedValue` access, and the write-back wraps it in two more reabstraction thunks:
/// each call then runs through every thunk added before it, so a server got slower with every
/// commit and its stack deeper, without bound. A struct's layout is the same in every context,
/// so nothing is converted.
final class ObserverSlot<Value: Sendable>: Sendable {
    private struct Observer: Sendable {
        let report: @Sendable (Value) -> Void
    }

    private let observer = NIOLockedValueBox<Observer?>(nil)

    /// An empty slot: reports go nowhere until ``set(_:)``.
    init() {}

    /// Sends every later report to `report`, instead of the callback set before.
    func set(_ report: @escaping @Sendable (Value) -> Void) {
        observer.withLockedValue { $0 = Observer(report: report) }
    }

    /// Calls the callback set, if any, with `value` (outside the lock).
    func report(_ value: Value) {
        observer.withLockedValue { $0 }?.report(value)
    }
}
