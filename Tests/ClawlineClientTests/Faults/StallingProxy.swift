import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy on 127.0.0.1 that can stop moving bytes without closing anything: the way a
/// network that drops packets looks to both ends. While stalled it reads nothing from either
/// side, so what they send waits in the kernels' buffers (as unacknowledged segments wait to be
/// sent again) and nothing arrives; no connection is closed or refused, and new ones are
/// accepted but carry nothing. When it resumes, everything held flows, in order, as TCP's
/// retransmissions would deliver it once the path heals.
final class StallingProxy: Sendable {
    let port: Int
    private let server: any Channel
    /// Whether it is stalled, and the connections it holds (shared with the accepting channel's initializer).
    private let shared: NIOLockedValueBox<State>

    private struct State {
        var stalled = false
        var channels: [any Channel] = []
    }

    /// A proxy to `upstreamPort` on 127.0.0.1.
    static func start(to upstreamPort: Int) async throws -> StallingProxy {
        let state = NIOLockedValueBox(State())
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .channelOption(.autoRead, value: false)
                    .channelInitializer { outbound in
                        outbound.eventLoop.makeCompletedFuture { try outbound.pipeline.syncOperations.addHandler(Forwarder(to: inbound)) }
                    }
                    .connect(host: "127.0.0.1", port: upstreamPort)
                    .flatMapThrowing { outbound in
                        try inbound.pipeline.syncOperations.addHandler(Forwarder(to: outbound))
                        let stalled = state.withLockedValue { state in
                            state.channels += [inbound, outbound]
                            return state.stalled
                        }
                        if !stalled {
                            inbound.setOption(.autoRead, value: true).whenComplete { _ in }
                            outbound.setOption(.autoRead, value: true).whenComplete { _ in }
                        }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return StallingProxy(server: server, port: server.localAddress?.port ?? 0, state: state)
    }

    private init(server: any Channel, port: Int, state: NIOLockedValueBox<State>) {
        self.server = server
        self.port = port
        shared = state
    }

    deinit { server.close(promise: nil) }

    /// Stops moving bytes: both directions of every connection, present and future.
    func stall() async throws {
        let channels = shared.withLockedValue { state in
            state.stalled = true
            return state.channels.filter(\.isActive)
        }
        for channel in channels { try await channel.setOption(.autoRead, value: false).get() }
    }

    /// Moves bytes again; what was held flows first.
    func resume() async throws {
        let channels = shared.withLockedValue { state in
            state.stalled = false
            state.channels.removeAll { !$0.isActive }
            return state.channels
        }
        for channel in channels {
            try? await channel.setOption(.autoRead, value: true).get()
            channel.read()
        }
    }

    /// Ends every connection and stops accepting.
    func close() async {
        let channels = shared.withLockedValue { $0.channels }
        for channel in channels { try? await channel.close() }
        try? await server.close()
    }
}

/// Writes what one side of a proxied connection reads to the other, and closes the other when
/// this one closes.
private final class Forwarder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let partner: any Channel

    init(to partner: any Channel) { self.partner = partner }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
