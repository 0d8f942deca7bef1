import ClawlineProtocol
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOWebSocket
import WSClient
import WireRuntime
import WireTestSupport

/// A client socket for tests: sends generated frames, reads the server's frames one at a time,
/// and checks every frame both ways with the shared session machine.
final class TestSocket: Sendable {
    private let commands: AsyncStream<Command>.Continuation
    /// What the server sent, not yet read.
    private let inbox = NIOLockedValueBox<[Received]>([])
    /// Signalled after each addition to the inbox.
    private let received = ChangeSignal()
    private let state: NIOLockedValueBox<State>
    private let connection: Task<Void, Never>

    private enum Command {
        case text(String)
        case close
    }

    private enum Received {
        case text(String)
        case closed(code: Int?)
    }

    private struct State {
        var machine: SessionMachine
        var violations: [SessionViolation] = []
        var closeCode: Int?
        var isClosed = false
    }

    static let engine = SessionEngine(rules: Clawline.sessionRules, rateLimits: Clawline.RateLimits.all)

    /// Opens a socket to `url`; its session machine reads time from `clock` (the server's, so
    /// that both judge rate windows alike).
    init(_ url: String, clock: any Clock<Duration> = ContinuousClock()) {
        state = NIOLockedValueBox(State(machine: SessionMachine(engine: TestSocket.engine, clock: clock)))
        let (commandStream, commands) = AsyncStream<Command>.makeStream()
        self.commands = commands
        let (inbox, received) = (inbox, received)
        var logger = Logger(label: "clawline.test.client")
        logger.logLevel = .warning
        connection = Task {
            do {
                let close = try await WebSocketClient.connect(
                    url: url, configuration: WebSocketClientConfiguration(maxFrameSize: Clawline.Constants.maxFrameBytes), logger: logger
                ) { inbound, outbound, _ in
                    let writer = Task {
                        for await command in commandStream {
                            switch command {
                            case .text(let text): try? await outbound.write(.text(text))
                            case .close: try? await outbound.close(.normalClosure, reason: nil)
                            }
                        }
                    }
                    defer { writer.cancel() }
                    for try await message in inbound.messages(maxSize: Clawline.Constants.maxFrameBytes) {
                        if case .text(let text) = message {
                            inbox.withLockedValue { $0.append(.text(text)) }
                            received.signal()
                        }
                    }
                }
                let code = close.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }
                inbox.withLockedValue { $0.append(.closed(code: code)) }
            } catch {
                inbox.withLockedValue { $0.append(.closed(code: nil)) }
            }
            received.signal()
        }
    }

    deinit {
        commands.finish()
        connection.cancel()
    }

    /// Every session rule a frame broke, either way.
    var violations: [SessionViolation] { state.withLockedValue { $0.violations } }

    /// Sends a frame.
    func send(_ frame: ClientFrame) {
        state.withLockedValue { state in state.violations += state.machine.observe(frame) }
        commands.yield(.text(frame.encodedText()))
    }

    /// Sends raw text.
    func send(text: String) {
        commands.yield(.text(text))
    }

    /// Starts the close handshake.
    func close() {
        commands.yield(.close)
    }

    /// The next frame from the server, decoded; fails when the socket closes first or nothing
    /// comes within `timeout` (a guard against a hung test, not a timing assertion).
    func next(timeout: Duration = .seconds(10)) async throws -> ServerFrame {
        switch try await nextEvent(timeout: timeout) {
        case .text(let text):
            let result = ServerFrame.decode(text: text)
            guard case .decoded(let frame, _) = result else { throw TestFailure("the server sent an invalid frame: \(text)") }
            state.withLockedValue { state in state.violations += state.machine.observe(frame) }
            return frame
        case .closed(let code):
            throw TestFailure("the socket closed (\(code.map(String.init) ?? "no code")) before a frame came")
        }
    }

    /// Waits for the server to close the socket and returns the close code; fails if a frame comes first.
    func closeCode(timeout: Duration = .seconds(10)) async throws -> Int? {
        switch try await nextEvent(timeout: timeout) {
        case .text(let text): throw TestFailure("expected the socket to close, got \(text)")
        case .closed(let code): return code
        }
    }

    /// The next event, woken by its arrival; a closed socket stays closed. Fails after `timeout`
    /// in real time, a guard against a hung test.
    private func nextEvent(timeout: Duration) async throws -> Received {
        var event: Received?
        await received.wait(timeout: timeout) {
            event = inbox.withLockedValue { events -> Received? in
                guard let first = events.first else { return nil }
                if case .text = first { events.removeFirst() }
                return first
            }
            return event != nil
        }
        guard let event else { throw TestFailure("nothing came within \(timeout)") }
        return event
    }

    /// Whether nothing is waiting to be read (the server sent nothing more, so far).
    var inboxIsEmpty: Bool { inbox.withLockedValue { $0.isEmpty } }
}
