import ClawlineProtocol
import Foundation

/// The calls a socket made by a task-based WebSocket API takes (Foundation's
/// `URLSessionWebSocketTask` in ``URLSessionTransport``, a fake in tests).
protocol WebSocketTaskCalls: Sendable {
    /// Opens the socket; returns once the upgrade succeeded (throws when it failed).
    func open() async throws
    /// The next message: its text, or `nil` for a binary one; throws once the socket is closed.
    func receive() async throws -> String?
    /// Sends a text message.
    func send(_ text: String) async throws
    /// Closes the socket with `code`.
    func close(code: Int)
    /// The peer's close code, once it sent one.
    var peerCloseCode: Int? { get }
}

/// A ``WebSocketConnection`` over ``WebSocketTaskCalls``: one reader that turns messages into
/// events (binary ones are skipped, the close is the last event), and one writer that keeps the
/// frames in the order they were queued. Everything but the calls is here, tested on every platform.
final class TaskConnection<Calls: WebSocketTaskCalls>: WebSocketConnection {
    let events: AsyncStream<WebSocketEvent>
    private let calls: Calls
    private let outgoing: AsyncStream<String>.Continuation
    private let reader: Task<Void, Never>
    private let writer: Task<Void, Never>

    /// Opens `calls`' socket, then reads and writes it; a failed open is `connectionFailed` naming `url`.
    static func open(_ calls: Calls, url: URL) async throws -> TaskConnection {
        do {
            try await calls.open()
        } catch {
            throw ClawlineClientError.connectionFailed("\(url.absoluteString): \(error.localizedDescription)")
        }
        return TaskConnection(calls)
    }

    init(_ calls: Calls) {
        self.calls = calls
        let (events, eventSink) = AsyncStream<WebSocketEvent>.makeStream()
        let (texts, outgoing) = AsyncStream<String>.makeStream()
        self.events = events
        self.outgoing = outgoing
        reader = Task {
            while true {
                do {
                    if let text = try await calls.receive() { eventSink.yield(.text(text)) }
                } catch {
                    eventSink.yield(.closed(code: calls.peerCloseCode))
                    eventSink.finish()
                    return
                }
            }
        }
        writer = Task {
            for await text in texts { try? await calls.send(text) }
        }
    }

    deinit {
        outgoing.finish()
        reader.cancel()
        writer.cancel()
        calls.close(code: 1001)
    }

    func send(_ text: String) {
        outgoing.yield(text)
    }

    func close(code: Int) {
        calls.close(code: code)
    }
}
