import ClawlineProtocol
import Foundation

/// Keeps a ``ChatService``'s socket up for one session (from `connect` to `disconnect` or the
/// next `connect`): opens the socket, reads it, and reconnects with backoff until the session
/// ends.
///
/// It holds the service weakly, and only for the length of each call into it, so an app that
/// drops its service without calling `disconnect()` does not leak a live socket and its
/// reconnect loop: the service is deinitialised, which closes the socket, and the loop ends. A
/// loop whose session has ended (a newer `connect`) finds its calls refused and stops without
/// touching the newer socket.
final class ConnectionSupervisor: Sendable {
    private weak let service: ChatService?
    /// The session this loop serves.
    private let session: Int
    private let transport: any WebSocketTransport
    private let environment: ClientEnvironment
    private let url: URL
    /// Told the session's number when the loop has ended (tests wait for it).
    private let ended: @Sendable (Int) -> Void

    init(
        service: ChatService, session: Int, transport: any WebSocketTransport, environment: ClientEnvironment, url: URL,
        ended: @escaping @Sendable (Int) -> Void
    ) {
        self.service = service
        self.ended = ended
        self.session = session
        self.transport = transport
        self.environment = environment
        self.url = url
    }

    /// Connects, reads until the socket ends, and reconnects until the session ends.
    func run() async {
        defer { ended(session) }
        while !Task.isCancelled {
            let end = await runSocket()
            guard end != .stale else { return }
            let session = session
            guard let deadline = await withService({ await $0.nextAttempt(after: end, session: session) }) ?? nil else { return }
            do {
                try await environment.sleep(untilElapsed: deadline)
            } catch {
                return
            }
        }
    }

    /// One socket from open to close, and how it ended.
    private func runSocket() async -> SocketEnd {
        let session = session
        guard await withService({ await $0.beginAttempt(session: session) }) == true else { return .stale }
        let opened: any WebSocketConnection
        do {
            let transport = transport
            let url = url
            opened = try await environment.withDeadline(Clawline.Constants.connectTimeout, "opening \(url.absoluteString)") {
                try await transport.connect(to: url)
            }
        } catch {
            await withService { await $0.attemptFailed("\(error)", session: session) }
            return .lost
        }
        guard let generation = await withService({ await $0.adopt(opened, session: session) }) ?? nil else {
            // The session ended while the socket opened: it is not this session's to use.
            opened.close(code: 1000)
            return .stale
        }
        var end = SocketEnd.lost
        var closeCode: Int?
        reading: for await event in opened.events {
            switch event {
            case .text(let text):
                guard let outcome = await withService({ await $0.receive(text, generation: generation) }) else {
                    end = .stale
                    break reading
                }
                if case .failed = outcome {
                    end = outcome
                    break reading
                }
                if case .stale = outcome {
                    end = .stale
                    break reading
                }
            case .closed(let code):
                closeCode = code
            }
        }
        if case .stale = end {
            opened.close(code: 1000)
        } else {
            await withService { await $0.socketEnded(generation: generation, end: end, closeCode: closeCode) }
        }
        return end
    }

    /// Runs `body` with the service if it still exists; the strong reference lasts for the call only.
    private func withService<T: Sendable>(_ body: (ChatService) async -> T) async -> T? {
        guard let service else { return nil }
        return await body(service)
    }
}

/// How a socket's reading ended.
enum SocketEnd: Sendable, Hashable {
    /// Keep reading (a frame was handled).
    case reading
    /// The socket was lost: reconnect with backoff.
    case lost
    /// The server ended the session (refused the token, replaced the device, …).
    case failed(ClawlineClientError)
    /// The session this socket served has ended (or the service is gone).
    case stale
}
