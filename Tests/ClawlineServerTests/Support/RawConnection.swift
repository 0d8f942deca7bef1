import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A plain TCP connection to the server, for what no HTTP or WebSocket client sends: a request
/// cut off halfway, or a connection that sends nothing.
final class RawConnection: Sendable {
    private let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private let received = NIOLockedValueBox<[UInt8]>([])
    private let reader: Task<Void, Never>

    /// Connects to `127.0.0.1:port`.
    init(port: Int) async throws {
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port) {
            channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
        }
        let channel = channel
        let received = received
        reader = Task {
            try? await channel.executeThenClose { inbound, _ in
                for try await buffer in inbound { received.withLockedValue { $0 += buffer.readableBytesView } }
            }
        }
    }

    /// Sends `text` as it is.
    func send(_ text: String) async throws {
        try await channel.channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Waits until the server closes the connection; returns every byte it sent.
    func waitForClose() async -> String {
        await reader.value
        return String(decoding: received.withLockedValue { $0 }, as: UTF8.self)
    }

    /// Waits until the server has sent something containing `text` (or closed); returns what it sent.
    func waitFor(_ text: String) async -> String {
        while true {
            let sofar = String(decoding: received.withLockedValue { $0 }, as: UTF8.self)
            if sofar.contains(text) || !channel.channel.isActive { return sofar }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Closes the connection from this side.
    func close() async {
        try? await channel.channel.close()
        await reader.value
    }
}
