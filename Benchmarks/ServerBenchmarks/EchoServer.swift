import Foundation
import Hummingbird
import HummingbirdWebSocket

/// The upper bound: a bare Hummingbird WebSocket server that sends every text message back.
enum EchoServer {
    static func run() async throws {
        let application = Application(
            router: Router(),
            server: .http1WebSocketUpgrade(configuration: .init(ws: WebSocketServerConfiguration(maxFrameSize: 1 << 20))) { _, _, _ in
                .upgrade([:]) { inbound, outbound, _ in
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .text(let text) = message { try await outbound.write(.text(text)) }
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
