import ClawlineProtocol
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A plain TCP connection to the server, for what no HTTP or WebSocket client sends: a request
/// cut off halfway, or a connection that sends nothing. Waits are woken by what arrives (or the
/// close), never by time.
final class RawConnection: Sendable {
    private struct Inbox {
        var bytes: [UInt8] = []
        /// Counts every change (bytes or the close), so a waiter misses none.
        var version = 0
        var closed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Whether the reader stops taking bytes (see ``pauseReading()``).
        var paused = false
    }

    private let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private let inbox = NIOLockedValueBox(Inbox())
    private let reader: Task<Void, Never>
    /// Resumed when a paused reader may go on (the connection is closing).
    private let unpause: AsyncStream<Void>.Continuation

    /// Connects to `127.0.0.1:port`, from `source` (another loopback address, say) when given,
    /// with a receive buffer of `receiveBufferBytes` when given (a small one makes a reader that
    /// stops reading hold back the server quickly).
    init(port: Int, from source: String? = nil, receiveBufferBytes: Int? = nil) async throws {
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        if let receiveBufferBytes { bootstrap = bootstrap.channelOption(.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBufferBytes)) }
        channel = try await bootstrap.connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                    wrappingChannelSynchronously: channel,
                    configuration: .init(backPressureStrategy: .init(lowWatermark: 1, highWatermark: 2)))
            }
        }
        let channel = channel
        let inbox = inbox
        let (unpaused, unpause) = AsyncStream<Void>.makeStream()
        self.unpause = unpause
        reader = Task {
            try? await channel.executeThenClose { inbound, _ in
                for try await buffer in inbound {
                    Self.change(inbox) { $0.bytes += buffer.readableBytesView }
                    // Paused: no more is taken, so the channel, then the kernel, stop reading.
                    if inbox.withLockedValue({ $0.paused }) { for await _ in unpaused { break } }
                }
            }
            Self.change(inbox) { $0.closed = true }
        }
    }

    /// Stops taking bytes after the next read, as a client that stops reading but keeps its
    /// connection does.
    func pauseReading() {
        inbox.withLockedValue { $0.paused = true }
    }

    /// Applies `body` to the inbox and wakes every waiter.
    private static func change(_ inbox: NIOLockedValueBox<Inbox>, _ body: (inout Inbox) -> Void) {
        let waiters = inbox.withLockedValue { inbox in
            body(&inbox)
            inbox.version += 1
            defer { inbox.waiters = [] }
            return inbox.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until what was received satisfies `done` or the connection closed; returns what was received.
    private func wait(until done: ([UInt8]) -> Bool) async -> [UInt8] {
        while true {
            let (bytes, version, closed) = inbox.withLockedValue { ($0.bytes, $0.version, $0.closed) }
            if done(bytes) || closed { return bytes }
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let changed = inbox.withLockedValue { inbox in
                    guard inbox.version == version else { return true }
                    inbox.waiters.append(waiter)
                    return false
                }
                if changed { waiter.resume() }
            }
        }
    }

    /// Sends `text` as it is.
    func send(_ text: String) async throws {
        try await channelWrite(Array(text.utf8))
    }

    /// Sends `bytes` as they are.
    func channelWrite(_ bytes: [UInt8]) async throws {
        try await channel.channel.writeAndFlush(ByteBuffer(bytes: bytes))
    }

    /// Waits until `text` has come `count` times (or the connection closed); whether it did.
    func waitFor(occurrence count: Int, of text: String) async -> Bool {
        let received = await wait { String(decoding: $0, as: UTF8.self).components(separatedBy: text).count > count }
        return String(decoding: received, as: UTF8.self).components(separatedBy: text).count > count
    }

    /// Every byte received so far.
    var bytes: [UInt8] { inbox.withLockedValue { $0.bytes } }

    /// Waits until the server closes the connection; returns every byte it sent.
    func waitForClose() async -> String {
        await reader.value
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Waits until the server has sent something containing `text` (or closed); returns what it sent.
    func waitFor(_ text: String) async -> String {
        String(decoding: await wait { String(decoding: $0, as: UTF8.self).contains(text) }, as: UTF8.self)
    }

    /// Closes the connection from this side.
    func close() async {
        unpause.finish()
        try? await channel.channel.close()
        await reader.value
    }
}

extension RawConnection {
    /// Opens a WebSocket to `/ws` by hand: the upgrade, then nothing this side does not send
    /// itself (no pong answers a ping).
    static func webSocket(port: Int, from source: String? = nil, receiveBufferBytes: Int? = nil) async throws -> RawConnection {
        let connection = try await RawConnection(port: port, from: source, receiveBufferBytes: receiveBufferBytes)
        try await connection.send(
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        guard await connection.waitFor("\r\n\r\n").hasPrefix("HTTP/1.1 101") else { throw TestFailure("the upgrade failed") }
        return connection
    }

    /// Sends one masked client frame (`0x1` text, `0xA` pong) of less than 64 KiB.
    func sendFrame(opcode: UInt8, _ payload: [UInt8] = []) async throws {
        try await channelWrite(Self.maskedFrame(opcode: opcode, payload))
    }

    /// The bytes of one masked client frame of less than 64 KiB.
    static func maskedFrame(opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count < 65_536, "frames under 64 KiB only")
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        let length: [UInt8] =
            payload.count < 126 ? [0x80 | UInt8(payload.count)] : [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        return [0x80 | opcode] + length + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// Sends `{}` (JSON that is no frame) and waits for the answer, `invalid_message` on a socket
    /// that stays open: every frame sent before it has been read by the server.
    func roundTrip(_ count: Int) async throws -> Bool {
        try await sendFrame(opcode: 0x1, Array("{}".utf8))
        return await waitFor(occurrence: count, of: "invalid_message")
    }

    /// Sends a client frame as text.
    func send(_ frame: ClientFrame) async throws {
        try await sendFrame(opcode: 0x1, frame.encoded())
    }
}
