import Foundation
import Logging
import NIOConcurrencyHelpers
import WSClient

/// A WebSocket for the load generator: text out, text in (one reader), the close noticed.
final class BenchSocket: Sendable {
    /// Text frames received by every socket of this process so far: what the servers wrote to them.
    static let framesReceived = NIOLockedValueBox(0)

    private let commands: AsyncStream<String?>.Continuation
    private let inbox = Inbox()
    private let task: Task<Void, Never>

    /// Connects to `url`.
    init(_ url: String) {
        let (commandStream, commands) = AsyncStream<String?>.makeStream()
        self.commands = commands
        let receiver = inbox
        var logger = Logger(label: "clawline.bench")
        logger.logLevel = .critical
        task = Task {
            _ = try? await WebSocketClient.connect(
                url: url, configuration: WebSocketClientConfiguration(maxFrameSize: 1 << 20), logger: logger
            ) { inbound, outbound, _ in
                let writer = Task {
                    for await command in commandStream {
                        guard let text = command else {
                            try? await outbound.close(.normalClosure, reason: nil)
                            return
                        }
                        try? await outbound.write(.text(text))
                    }
                }
                defer { writer.cancel() }
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    if case .text(let text) = message {
                        BenchSocket.framesReceived.withLockedValue { $0 += 1 }
                        receiver.push(text)
                    }
                }
            }
            receiver.push(nil)
        }
    }

    /// Sends a text message.
    func send(_ text: String) { commands.yield(text) }

    /// The next text message; `nil` once the socket closed. One caller at a time.
    func next() async -> String? { await inbox.next() }

    /// Closes the socket.
    func close() {
        commands.yield(nil)
        commands.finish()
    }
}

/// Received texts waiting for the one reader; `nil` marks the end.
private final class Inbox: Sendable {
    private struct State {
        var buffer: [String?] = []
        var reader: CheckedContinuation<String?, Never>?
    }
    private let state = NIOLockedValueBox(State())

    func push(_ text: String?) {
        let reader = state.withLockedValue { state -> CheckedContinuation<String?, Never>? in
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            state.buffer.append(text)
            return nil
        }
        reader?.resume(returning: text)
    }

    func next() async -> String? {
        await withCheckedContinuation { continuation in
            let ready = state.withLockedValue { state -> String?? in
                if !state.buffer.isEmpty {
                    let first = state.buffer.removeFirst()
                    // The end stays for later readers.
                    if first == nil { state.buffer.insert(nil, at: 0) }
                    return .some(first)
                }
                state.reader = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
