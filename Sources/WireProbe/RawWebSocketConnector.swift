// Built with the package trait NIOTransport (which Server enables).
#if NIOTransport
    import Foundation
    import NIOCore
    import NIOPosix
    import NIOSSL

    /// Opens WebSockets that show what a WebSocket library hides: the provider's pings, and
    /// what the provider does to a peer that never answers them.
    ///
    /// A small client of its own on SwiftNIO (the handshake and RFC 6455 frames written here), so
    /// that a keepalive check can count pings and choose not to answer them; the frames it sends
    /// are masked text frames, as a client's must be.
    public struct RawWebSocketConnector: PingObservingConnector {
        /// The provider's WebSocket URL.
        public let url: URL
        /// A PEM file of certificate authorities trusted for `wss://`, besides the system's.
        public let trustedCAFile: String?

        /// A connector to `url`.
        public init(url: URL, trustedCAFile: String? = nil) {
            self.url = url
            self.trustedCAFile = trustedCAFile
        }

        private static func tlsContext(trusting trustedCAFile: String?) throws -> NIOSSLContext {
            var configuration = TLSConfiguration.makeClientConfiguration()
            if let trustedCAFile { configuration.additionalTrustRoots = [.file(trustedCAFile)] }
            return try NIOSSLContext(configuration: configuration)
        }

        /// A new socket, open; it answers the provider's pings with pongs when `answeringPings`.
        public func open(answeringPings: Bool) async throws -> any PingObservingSocket { try await openSocket(answeringPings: answeringPings) }

        /// A new socket, open, as its own type.
        public func openSocket(answeringPings: Bool) async throws -> RawWebSocket {
            guard let host = url.host else { throw ProbeSetupError("\(url.absoluteString) has no host") }
            let secure = url.scheme == "wss"
            let port = url.port ?? (secure ? 443 : 80)
            let tls: NIOSSLContext? = try secure ? Self.tlsContext(trusting: trustedCAFile) : nil
            let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
            do {
                channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: host, port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tls {
                            // No server name for an IP address (RFC 6066): the certificate's IP address is checked instead.
                            let serverName = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
                            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverName))
                        }
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            } catch {
                throw ProbeSetupError("could not connect to \(url.absoluteString): \(error)")
            }
            let socket = RawWebSocket(answeringPings: answeringPings)
            let (writers, writerSink) = AsyncStream<NIOAsyncChannelOutboundWriter<ByteBuffer>>.makeStream()
            let request = RawWebSocket.handshake(host: host, port: port, path: url.path.isEmpty ? "/" : url.path)
            socket.task = Task {
                try? await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(ByteBuffer(bytes: request))
                    writerSink.yield(outbound)
                    writerSink.finish()
                    for try await buffer in inbound {
                        let replies = await socket.received(Array(buffer.readableBytesView))
                        for reply in replies { try await outbound.write(ByteBuffer(bytes: reply)) }
                    }
                }
                writerSink.finish()
                await socket.ended()
            }
            for await writer in writers {
                socket.writer = writer
                guard await socket.upgraded() else { throw ProbeSetupError("\(url.absoluteString) did not accept the WebSocket upgrade") }
                return socket
            }
            throw ProbeSetupError("the connection to \(url.absoluteString) closed before the upgrade")
        }
    }

    /// A WebSocket that ``RawWebSocketConnector`` opened.
    public final class RawWebSocket: PingObservingSocket, @unchecked Sendable {
        // The writer and task are set once, before the socket is handed out; the parser's state
        // lives in `reader`, an actor.
        fileprivate var writer: NIOAsyncChannelOutboundWriter<ByteBuffer>?
        fileprivate var task: Task<Void, Never>?
        private let reader: FrameReader
        private let inbox = ProbeInbox()
        /// An event per ping received (the inbox only counts them).
        private let pings = ProbeInbox()

        fileprivate init(answeringPings: Bool) { reader = FrameReader(answeringPings: answeringPings) }

        public func send(_ text: String) async throws {
            guard let writer else { throw ProbeSetupError("the socket is not open") }
            try await writer.write(ByteBuffer(bytes: Self.frame(opcode: 0x1, payload: Array(text.utf8))))
        }

        public func next(within timeout: Duration) async throws -> ProbeEvent? { await inbox.next(within: timeout) }

        /// Whether a ping came within `timeout` (counting pings not yet waited for).
        public func waitForPing(within timeout: Duration) async -> Bool { await pings.next(within: timeout) != nil }

        public func close() async {
            try? await writer?.write(ByteBuffer(bytes: Self.frame(opcode: 0x8, payload: [0x03, 0xE8])))
            writer?.finish()
        }

        fileprivate func received(_ bytes: [UInt8]) async -> [[UInt8]] {
            let (events, pingCount, replies) = await reader.read(bytes)
            for event in events { await inbox.deliver(event) }
            for _ in 0..<pingCount { await pings.deliver(.text("ping")) }
            return replies
        }

        fileprivate func upgraded() async -> Bool { await reader.waitForUpgrade() }

        fileprivate func ended() async {
            await reader.end()
            await inbox.deliver(.closed(code: nil))
            await pings.deliver(.closed(code: nil))
        }

        static func handshake(host: String, port: Int, path: String) -> [UInt8] {
            let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            return Array(
                ("GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
        }

        /// A masked client frame (RFC 6455 §5.2), final.
        static func frame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
            var bytes: [UInt8] = [0x80 | opcode]
            switch payload.count {
            case ..<126: bytes.append(0x80 | UInt8(payload.count))
            case ..<65536: bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
            default: bytes += [0x80 | 127] + (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
            }
            let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
            bytes += mask
            bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
            return bytes
        }
    }

    /// Reads the upgrade's answer, then the provider's frames (unmasked, RFC 6455 §5.2).
    private actor FrameReader {
        private let answeringPings: Bool
        private var buffer: [UInt8] = []
        private var upgrade: Bool?
        private var upgradeWaiter: CheckedContinuation<Bool, Never>?
        private var message: [UInt8] = []

        init(answeringPings: Bool) { self.answeringPings = answeringPings }

        func waitForUpgrade() async -> Bool {
            if let upgrade { return upgrade }
            return await withCheckedContinuation { upgradeWaiter = $0 }
        }

        func end() { settleUpgrade(false) }

        private func settleUpgrade(_ accepted: Bool) {
            guard upgrade == nil else { return }
            upgrade = accepted
            upgradeWaiter?.resume(returning: accepted)
            upgradeWaiter = nil
        }

        /// The events, the pings and the replies (pongs, the close's echo) `bytes` complete.
        func read(_ bytes: [UInt8]) -> (events: [ProbeEvent], pings: Int, replies: [[UInt8]]) {
            buffer += bytes
            if upgrade == nil {
                guard let end = headersEnd() else { return ([], 0, []) }
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                settleUpgrade(head.hasPrefix("HTTP/1.1 101"))
            }
            var events: [ProbeEvent] = []
            var pings = 0
            var replies: [[UInt8]] = []
            while let (fin, opcode, payload) = nextFrame() {
                switch opcode {
                case 0x1, 0x0:
                    message += payload
                    if fin {
                        events.append(.text(String(decoding: message, as: UTF8.self)))
                        message = []
                    }
                case 0x8:
                    let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil
                    events.append(.closed(code: code))
                    replies.append(RawWebSocket.frame(opcode: 0x8, payload: Array(payload.prefix(2))))
                case 0x9:
                    pings += 1
                    if answeringPings { replies.append(RawWebSocket.frame(opcode: 0xA, payload: payload)) }
                default: continue
                }
            }
            return (events, pings, replies)
        }

        private func headersEnd() -> Int? {
            guard buffer.count >= 4 else { return nil }
            for index in 0...(buffer.count - 4)
            where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                return index
            }
            return nil
        }

        private func nextFrame() -> (fin: Bool, opcode: UInt8, payload: [UInt8])? {
            guard buffer.count >= 2 else { return nil }
            let masked = buffer[1] & 0x80 != 0
            var length = Int(buffer[1] & 0x7F)
            var offset = 2
            if length == 126 {
                guard buffer.count >= 4 else { return nil }
                length = Int(buffer[2]) << 8 | Int(buffer[3])
                offset = 4
            } else if length == 127 {
                guard buffer.count >= 10 else { return nil }
                length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
                offset = 10
            }
            let mask = masked ? Array(buffer[offset..<min(offset + 4, buffer.count)]) : []
            if masked { offset += 4 }
            guard buffer.count >= offset + length else { return nil }
            var payload = Array(buffer[offset..<(offset + length)])
            if masked { payload = payload.enumerated().map { $0.element ^ mask[$0.offset % 4] } }
            let header = buffer[0]
            buffer.removeFirst(offset + length)
            return (header & 0x80 != 0, header & 0x0F, payload)
        }
    }
#endif
