import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOWebSocket

/// One socket's pongs, for the keepalive the spec states: a ping every `pingInterval`, and the
/// socket closed (1001) once no pong has come for `pongTimeout` (``KeepaliveWatch`` does both for
/// every socket). Pongs are seen below Hummingbird's WebSocket handler (which answers and swallows
/// control frames) by a ``PongObserver``; time is the environment's keepalive clock.
final class Keepalive: Sendable {
    private let lastPongTime: NIOLockedValueBox<Duration>
    private let now: @Sendable () -> Duration

    /// A socket that opened now: its silence counts from here.
    init(now: @escaping @Sendable () -> Duration) {
        self.now = now
        lastPongTime = NIOLockedValueBox(now())
    }

    /// When the last pong arrived (the socket's opening before the first).
    var lastPong: Duration { lastPongTime.withLockedValue { $0 } }

    /// A pong arrived (solicited or not: RFC 6455 lets a pong be a heartbeat).
    func pong() {
        let now = now()
        lastPongTime.withLockedValue { $0 = now }
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
