import ArgumentParser
import ClawlineClient
import ClawlineProtocol
import Foundation

struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat in line mode: type a message and press Return; streamed answers appear as they arrive. Ctrl-C leaves.")

    @OptionGroup var state: StateOptions

    func run() async throws {
        let device = try state.load()
        let credentials = try device.requireCredentials()
        let chat = device.chatService(credentials)
        let stopping = SignalWatcher(signals: [SIGINT, SIGTERM])
        let lines = StandardInputLines()
        let shownMessages = ShownMessages()
        let shown = Task { await Self.show(chat, deviceId: device.identity.deviceId, shown: shownMessages) }
        defer { shown.cancel() }
        try await device.connect(chat, credentials)
        FileHandle.standardError.write(Data("connected; type a message and press Return, Ctrl-C to leave\n".utf8))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await stopping.wait() }
            group.addTask {
                for await line in lines.stream where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                    do {
                        try await chat.send(content: line, attachments: [])
                    } catch {
                        FileHandle.standardError.write(Data("\(ClientFailure(error).description)\n".utf8))
                    }
                }
                // Input ended (a pipe): leave once what was sent is answered.
                await Self.waitUntilSettled(chat, shown: shownMessages)
            }
            await group.next()
            group.cancelAll()
        }
        await chat.disconnect()
        FileHandle.standardError.write(Data("bye\n".utf8))
    }

    /// Waits until nothing is queued, every message this device sent is echoed by the server (or
    /// failed), the last message is not waiting for its answer, and that message is on the screen.
    static func waitUntilSettled(_ chat: ChatService, shown: ShownMessages) async {
        while !Task.isCancelled {
            // Until its echo, a message keeps the id it was sent with: an ack alone does not settle it.
            if let conversation = try? await chat.conversation(), conversation.pending.isEmpty,
                !conversation.messages.contains(where: { $0.clientId != nil && $0.id == $0.clientId && $0.status != .failed }),
                let last = conversation.messages.last, last.role == .assistant ? !last.isStreaming : last.status == .failed,
                shown.contains(last)
            {
                return
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Prints messages, typing, connection changes and notices until cancelled.
    static func show(_ chat: ChatService, deviceId: DeviceId, shown: ShownMessages) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var printer = TranscriptPrinter(deviceId: deviceId)
                for await message in chat.incomingMessages {
                    write(printer.render(message))
                    shown.insert(message)
                }
            }
            group.addTask {
                for await state in chat.connectionState { FileHandle.standardError.write(Data("\(describe(state))\n".utf8)) }
            }
            group.addTask {
                for await typing in chat.incomingTyping where typing.active {
                    FileHandle.standardError.write(Data("[assistant is typing…]\n".utf8))
                }
            }
            group.addTask {
                for await notice in chat.notices {
                    switch notice {
                    case .authenticated(let success) where success.replayTruncated || success.historyReset == true:
                        FileHandle.standardError.write(Data("[older history was dropped by the server]\n".utf8))
                    case .serverError(let error):
                        FileHandle.standardError.write(Data("[server: \(error.code.rawValue): \(error.message)]\n".utf8))
                    default:
                        break
                    }
                }
            }
        }
    }
}

/// The messages printed so far, in their latest state.
final class ShownMessages: @unchecked Sendable {
    private let lock = NSLock()
    private var shown: Set<ChatMessage> = []

    func insert(_ message: ChatMessage) { _ = lock.withLock { shown.insert(message) } }
    func contains(_ message: ChatMessage) -> Bool { lock.withLock { shown.contains(message) } }
}

/// Lines typed on standard input, read on their own thread.
final class StandardInputLines: Sendable {
    let stream: AsyncStream<String>

    init() {
        let (stream, sink) = AsyncStream<String>.makeStream()
        self.stream = stream
        Thread.detachNewThread {
            while let line = readLine() { sink.yield(line) }
            sink.finish()
        }
    }
}

/// Waits for one of a set of signals (instead of the default, which kills the process).
final class SignalWatcher: @unchecked Sendable {
    private let sources: [DispatchSourceSignal]
    private let received: AsyncStream<Void>

    init(signals: [Int32]) {
        let (received, sink) = AsyncStream<Void>.makeStream()
        self.received = received
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { sink.yield() }
            source.resume()
            return source
        }
    }

    /// Returns when a signal arrives.
    func wait() async {
        for await _ in received { return }
    }
}
