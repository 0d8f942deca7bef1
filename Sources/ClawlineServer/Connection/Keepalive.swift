import ClawlineProtocol
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// One socket's keepalive, as the spec states it: a ping every `pingInterval`, and the socket
/// closed (1001) once no pong has come for `pongTimeout`. Pongs are seen below Hummingbird's
/// WebSocket handler (which answers and swallows control frames) by a ``PongObserver``; time is
/// the environment's keepalive clock.
final class Keepalive: Sendable {
    private let lastPong: NIOLockedValueBox<Duration>
    private let now: @Sendable () -> Duration
    let interval: Duration
    let timeout: Duration

    init(
        now: @escaping @Sendable () -> Duration, interval: Duration = Clawline.Constants.pingInterval,
        timeout: Duration = Clawline.Constants.pongTimeout
    ) {
        self.now = now
        self.interval = interval
        self.timeout = timeout
        lastPong = NIOLockedValueBox(now())
    }

    /// A pong arrived (solicited or not: RFC 6455 lets a pong be a heartbeat).
    func pong() {
        let now = now()
        lastPong.withLockedValue { $0 = now }
    }

    /// Pings `connection` every interval on `clock` and closes it once the peer has been silent
    /// for the timeout; returns then, or throws when cancelled (the socket ended).
    func run(on connection: ServerConnection, clock: any Clock<Duration>) async throws {
        var nextPing = now() + interval
        while !connection.isClosed {
            let deadline = min(nextPing, lastPong.withLockedValue { $0 } + timeout)
            let start = now()
            if deadline > start { try await clock.sleep(for: deadline - start) }
            let current = now()
            if current - lastPong.withLockedValue({ $0 }) >= timeout {
                connection.close(code: 1001, reason: "no pong for \(timeout)")
                return
            }
            if current >= nextPing {
                connection.ping()
                nextPing = current + interval
            }
        }
    }

    /// Puts a ``PongObserver`` for this keepalive right after the WebSocket frame decoder of an
    /// upgraded `channel`.
    func observePongs(on channel: any Channel, logger: Logger) async {
        do {
            try await channel.eventLoop.submit { [self] in
                let pipeline = channel.pipeline.syncOperations
                let decoder = try pipeline.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
                try pipeline.addHandler(PongObserver(keepalive: self), position: .after(decoder))
            }.get()
        } catch {
            logger.debug("pongs cannot be observed; the socket has closed", metadata: ["error": "\(error)"])
        }
    }
}

/// Tells a ``Keepalive`` of every pong frame, and passes every frame on.
final class PongObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private let keepalive: Keepalive

    init(keepalive: Keepalive) { self.keepalive = keepalive }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if unwrapInboundIn(data).opcode == .pong { keepalive.pong() }
        context.fireChannelRead(data)
    }
}
