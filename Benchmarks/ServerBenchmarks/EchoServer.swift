import ClawlineServer
import Foundation
import Hummingbird
import HummingbirdWebSocket
import NIOConcurrencyHelpers

/// The upper bound: a bare Hummingbird WebSocket server that sends every text message back,
/// `copies` times (once by default). With as many copies as the provider writes frames for one
/// message, it moves the provider's traffic (the same frames in, the same number out, on the
/// same sockets) and does nothing else.
///
/// With a `database` path it also stores what the contract makes a provider store for each
/// message, through the provider's own SQLite store: the message is claimed under its client id
/// and its echo stored in one transaction before the first copy goes out, and an answer is
/// stored before the last copy goes out. That is the floor of a provider that keeps its
/// acknowledgements: no session rules, no streams, no typing, no hub.
enum EchoServer {
    static func run(copies: Int = 1, database: String? = nil) async throws {
        let copies = max(1, copies)
        let opened: SQLiteProviderStore? = if let database { try await SQLiteProviderStore.open(path: database) } else { nil }
        let sockets = NIOLockedValueBox(0)
        let application = Application(
            router: Router(),
            server: .http1WebSocketUpgrade(configuration: .init(ws: WebSocketServerConfiguration(maxFrameSize: 1 << 20))) { _, _, _ in
                .upgrade([:]) { inbound, outbound, _ in
                    let socket = sockets.withLockedValue { count in
                        count += 1
                        return count
                    }
                    var received = 0
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else { continue }
                        guard let store = opened else {
                            for _ in 0..<copies { try await outbound.write(.text(text)) }
                            continue
                        }
                        received += 1
                        let (device, user) = ("d_\(socket)", "u_\(socket)")
                        _ = try await store.accept(
                            clientMessageID: "c_\(received)", deviceID: device, fingerprint: "",
                            echo: StoredEvent(eventID: EventIDs.next(), userID: user, frame: text))
                        for _ in 1..<copies { try await outbound.write(.text(text)) }
                        try await store.append(StoredEvent(eventID: EventIDs.next(), userID: user, frame: text))
                        try await outbound.write(.text(text))
                    }
                }
            },
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(channel.localAddress?.port ?? 0)\n".utf8))
            }
        )
        try await application.runService()
    }

    /// Event ids in the order they are made, as the provider's time-ordered ids are: each lands
    /// next to the one before in the store's index.
    private enum EventIDs {
        private static let last = NIOLockedValueBox(0)

        static func next() -> String {
            let number = last.withLockedValue { last in
                last += 1
                return last
            }
            let digits = String(number, radix: 16)
            return "s_" + String(repeating: "0", count: max(0, 16 - digits.count)) + digits
        }
    }
}
