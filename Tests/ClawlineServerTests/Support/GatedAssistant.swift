import ClawlineServer
import NIOConcurrencyHelpers

/// An assistant the test drives: each answer sends the snapshot `"<content>"`, then waits until
/// the test opens the gate (or forever, for a stalled stream), then answers `"<content> done"`.
final class GatedAssistant: Assistant {
    private let gate: AsyncStream<Void>
    private let opener: AsyncStream<Void>.Continuation
    private let waits: Bool

    /// An assistant whose answers wait for ``open()``; with `stalls`, they never end on their own.
    init(stalls: Bool = false) {
        (gate, opener) = AsyncStream<Void>.makeStream()
        waits = !stalls
    }

    /// Lets one waiting answer finish.
    func open() { opener.yield() }

    func answer(_ request: AssistantRequest, snapshot: @Sendable (String) async throws -> Void) async throws -> String {
        try await snapshot(request.content)
        if waits {
            for await _ in gate { break }
        } else {
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
        try Task.checkCancellation()
        return request.content + " done"
    }
}
