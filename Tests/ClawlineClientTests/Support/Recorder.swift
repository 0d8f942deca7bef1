import Foundation
import NIOConcurrencyHelpers
import Observation
import WireTestSupport

/// Reads a stream to the end in the background and keeps every element, so a test can wait for
/// the one it expects without owning the stream's only iterator.
final class Recorder<Element: Sendable>: Sendable {
    private let elements = NIOLockedValueBox<(recorded: [Element], ended: Bool)>(([], false))
    /// Signalled after each element, and when the stream ends.
    private let recorded = ChangeSignal()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let (elements, recorded) = (elements, recorded)
        task = Task {
            for await element in stream {
                elements.withLockedValue { $0.recorded.append(element) }
                recorded.signal()
            }
            elements.withLockedValue { $0.ended = true }
            recorded.signal()
        }
    }

    deinit { task.cancel() }

    /// Everything recorded so far.
    var all: [Element] { elements.withLockedValue { $0.recorded } }

    /// Waits until `condition` holds for everything recorded so far, checked now and after each
    /// element recorded; false after `timeout` in real time (a guard against a hung test, not a
    /// timing assertion).
    func wait(timeout: Duration = .seconds(60), until condition: ([Element]) -> Bool) async -> Bool {
        await recorded.wait(timeout: timeout) { condition(all) }
    }

    /// Waits for an element matching `predicate`, and returns the first. Woken by each element
    /// recorded; fails when the stream ends without one, or after `timeout` in real time (a
    /// guard against a hung test, not a timing assertion).
    func first(timeout: Duration = .seconds(60), where predicate: (Element) -> Bool) async throws -> Element {
        var match: Element?
        var ended = false
        await recorded.wait(timeout: timeout) {
            let state = elements.withLockedValue { $0 }
            match = state.recorded.first(where: predicate)
            ended = state.ended
            return match != nil || ended
        }
        if let match { return match }
        let why = ended ? "the stream ended with nothing matching" : "nothing matching came within \(timeout)"
        throw ClientTestFailure("\(why); recorded: \(all)")
    }
}

/// A failed step of a test.
struct ClientTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Waits until `condition`, on the main actor, holds: checked now and after each change to the
/// observable state it reads (the view models and `MockAuthManager` are `@Observable`), and after
/// each signal of `signal` (for state that is not observable, such as a mock's counters). False
/// after `timeout` in real time (a guard against a hung test, not a timing assertion).
@MainActor
func eventuallyOnMain(
    timeout: Duration = .seconds(60), wokenBy signal: ChangeSignal = ChangeSignal(), _ condition: @MainActor () -> Bool
) async throws -> Bool {
    // Observation calls `onChange` once, at the next change to anything the condition read.
    await signal.wait(timeout: timeout) { withObservationTracking({ condition() }, onChange: { signal.signal() }) }
}
