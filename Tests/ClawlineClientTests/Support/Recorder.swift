import Foundation
import NIOConcurrencyHelpers
import WireTestSupport

/// Reads a stream to the end in the background and keeps every element, so a test can wait for
/// the one it expects without owning the stream's only iterator.
final class Recorder<Element: Sendable>: Sendable {
    private let elements = NIOLockedValueBox<[Element]>([])
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Element>) {
        let elements = elements
        task = Task {
            for await element in stream { elements.withLockedValue { $0.append(element) } }
        }
    }

    deinit { task.cancel() }

    /// Everything recorded so far.
    var all: [Element] { elements.withLockedValue { $0 } }

    /// Waits (in real time, at most `timeout`: a guard against a hung test, not a timing
    /// assertion) for an element matching `predicate`, and returns the first.
    func first(timeout: Duration = .seconds(60), where predicate: (Element) -> Bool) async throws -> Element {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if let match = all.first(where: predicate) { return match }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw ClientTestFailure("nothing matching came within \(timeout); recorded: \(all)")
    }
}

/// A failed step of a test.
struct ClientTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// ``eventually(timeout:_:)`` for state on the main actor (view models).
@MainActor
func eventuallyOnMain(timeout: Duration = .seconds(60), _ condition: @MainActor () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return false
}
