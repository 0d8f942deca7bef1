import Foundation
import Hummingbird
import HummingbirdWebSocket

/// The upper bound: a bare Hummingbird WebSocket server that sends every text message back,
/// `copies` times (once by default). With as many copies as the provider writes frames for one
/// message, it moves the provider's traffic (the same frames in, the same number out, on the
/// same sockets) and does nothing else.
enum EchoServer {
    static func run(copies: Int = 1) async throws {
        let copies = max(1, copies)
        let application = Application(
            router: Router(),
            server: .http1WebSocketUpgrade(configuration: .init(ws: WebSocketServerConfiguration(maxFrameSize: 1 << 20))) { _, _, _ in
                .upgrade([:]) { inbound, outbound, _ in
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else { continue }
                        for _ in 0..<copies { try await outbound.write(.text(text)) }
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
}
