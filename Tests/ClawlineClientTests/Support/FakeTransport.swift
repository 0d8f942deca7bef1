import ClawlineClient
import ClawlineProtocol
import Foundation
import NIOConcurrencyHelpers
import WireTestSupport

/// A transport whose sockets a test drives: it reads what the client sent and plays the server.
final class FakeTransport: WebSocketTransport {
    private let opened = NIOLockedValueBox<[FakeSocket]>([])
    /// Signalled after each socket the client opens.
    private let openedChanged = ChangeSignal()
    private let lingering: Bool

    /// A transport; with `lingering`, its sockets behave as real ones do after the client closes
    /// them: frames may still arrive until the peer's close comes (``FakeSocket/endEvents(code:)``),
    /// and reading goes on whether or not the reading task was cancelled.
    init(lingering: Bool = false) {
        self.lingering = lingering
    }

    func connect(to url: URL) async throws -> any WebSocketConnection {
        let socket = FakeSocket(lingering: lingering)
        opened.withLockedValue { $0.append(socket) }
        openedChanged.signal()
        return socket
    }

    /// How many sockets the client opened.
    var openedCount: Int { opened.withLockedValue { $0.count } }

    /// The `index`th socket the client opened (from 0), once it is open.
    func socket(_ index: Int) async throws -> FakeSocket {
        guard await openedChanged.wait(until: { self.openedCount > index }) else { throw ClientTestFailure("socket \(index) was never opened") }
        return opened.withLockedValue { $0[index] }
    }
}

/// One socket of a ``FakeTransport``.
final class FakeSocket: WebSocketConnection {
    let events: AsyncStream<WebSocketEvent>
    private let sink: AsyncStream<WebSocketEvent>.Continuation
    private let sent = NIOLockedValueBox<[String]>([])
    /// Signalled after each frame the client sends, and when it closes the socket.
    private let sentChanged = ChangeSignal()
    private let closeCode = NIOLockedValueBox<Int?>(nil)
    private let lingering: Bool

    init(lingering: Bool = false) {
        self.lingering = lingering
        let (stream, sink) = AsyncStream<WebSocketEvent>.makeStream()
        self.sink = sink
        if lingering {
            // Read through a task of its own, so that cancelling the reader does not end the reading.
            let queue = EventQueue()
            Task {
                for await event in stream { queue.push(event) }
                queue.finish()
            }
            events = AsyncStream(unfolding: { await queue.next() })
        } else {
            events = stream
        }
    }

    func send(_ text: String) {
        sent.withLockedValue { $0.append(text) }
        sentChanged.signal()
    }

    func close(code: Int) {
        closeCode.withLockedValue { $0 = $0 ?? code }
        sentChanged.signal()
        if !lingering { endEvents(code: code) }
    }

    /// The code the client closed the socket with, if it did.
    var closedByClient: Int? { closeCode.withLockedValue { $0 } }

    /// Waits until the client closed the socket; returns the code it closed with, or `nil` when
    /// it did not close within `timeout` in real time (a guard against a hung test).
    func waitForClose(timeout: Duration = .seconds(60)) async -> Int? {
        await sentChanged.wait(timeout: timeout) { self.closedByClient != nil }
        return closedByClient
    }

    /// Ends the socket's events with the peer's close.
    func endEvents(code: Int) {
        sink.yield(.closed(code: code))
        sink.finish()
    }

    /// Plays a server frame.
    func deliver(_ frame: ServerFrame) { sink.yield(.text(frame.encodedText())) }

    /// Every frame the client sent, decoded.
    var frames: [ClientFrame] { sent.withLockedValue { $0 }.compactMap { ClientFrame.decode(text: $0).frame } }

    /// The ids of the messages the client sent, in order (retries included).
    var messageIDs: [String] {
        frames.compactMap { frame in
            if case .message(let message) = frame { return message.id.rawValue }
            return nil
        }
    }

    /// Waits until the client sent at least `count` frames; returns them.
    @discardableResult
    func waitForFrames(_ count: Int) async throws -> [ClientFrame] {
        guard await sentChanged.wait(until: { self.frames.count >= count }) else {
            throw ClientTestFailure("the client sent \(frames.count) frames, not \(count): \(frames)")
        }
        return frames
    }

    /// Answers the client's `auth` with success.
    func authenticate(replayCount: Int = 0) async throws {
        try await waitForFrames(1)
        deliver(.authResult(.success(userId: "user-1", sessionId: "sess-1", replayCount: replayCount, replayTruncated: false)))
    }
}

/// Events waiting for one reader, whose wait does not end when the reader is cancelled.
private final class EventQueue: Sendable {
    private struct State {
        var buffer: [WebSocketEvent] = []
        var waiter: CheckedContinuation<WebSocketEvent?, Never>?
        var finished = false
    }

    private let state = NIOLockedValueBox(State())

    func push(_ event: WebSocketEvent) {
        let waiter = state.withLockedValue { state in
            guard let waiter = state.waiter else {
                state.buffer.append(event)
                return nil as CheckedContinuation<WebSocketEvent?, Never>?
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: event)
    }

    func finish() {
        let waiter = state.withLockedValue { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    func next() async -> WebSocketEvent? {
        await withCheckedContinuation { continuation in
            let ready: WebSocketEvent?? = state.withLockedValue { state in
                if !state.buffer.isEmpty { return .some(state.buffer.removeFirst()) }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
