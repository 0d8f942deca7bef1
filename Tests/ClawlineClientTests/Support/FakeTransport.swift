import ClawlineClient
import ClawlineProtocol
import Foundation
import NIOConcurrencyHelpers
import WireTestSupport

/// A transport whose sockets a test drives: it reads what the client sent and plays the server.
final class FakeTransport: WebSocketTransport {
    private let opened = NIOLockedValueBox<[FakeSocket]>([])

    func connect(to url: URL) async throws -> any WebSocketConnection {
        let socket = FakeSocket()
        opened.withLockedValue { $0.append(socket) }
        return socket
    }

    /// How many sockets the client opened.
    var openedCount: Int { opened.withLockedValue { $0.count } }

    /// The `index`th socket the client opened (from 0), once it is open.
    func socket(_ index: Int) async throws -> FakeSocket {
        guard try await eventually({ self.openedCount > index }) else { throw ClientTestFailure("socket \(index) was never opened") }
        return opened.withLockedValue { $0[index] }
    }
}

/// One socket of a ``FakeTransport``.
final class FakeSocket: WebSocketConnection {
    let events: AsyncStream<WebSocketEvent>
    private let sink: AsyncStream<WebSocketEvent>.Continuation
    private let sent = NIOLockedValueBox<[String]>([])

    init() {
        (events, sink) = AsyncStream.makeStream()
    }

    func send(_ text: String) { sent.withLockedValue { $0.append(text) } }

    func close(code: Int) {
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
        guard try await eventually({ self.frames.count >= count }) else {
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
