import NIOCore
import NIOWebSocket

/// Writes a socket's frames on its event loop a batch at a time: one hop to the loop and one
/// flush for every batch the socket's writer takes from its outbox.
///
/// Hummingbird's `WebSocketOutboundWriter` hops to the event loop and flushes once per frame: it
/// has no call that writes several frames at once (NIO's `NIOAsyncChannelOutboundWriter` has
/// `write(contentsOf:)`, but the WebSocket writer does not pass it on). A broadcast of one frame
/// to many sockets, or a burst of stream snapshots to one, paid that hop and flush per frame.
///
/// The writer sits in the socket's pipeline just after the WebSocket frame encoder, so the frames
/// the WebSocket handler writes itself (its pongs and its close) pass through it. Once a close
/// frame has gone out, batches are dropped, as RFC 6455 asks (no frames after a close).
///
/// Backpressure: when the channel cannot take more after a batch's flush, the batch's future
/// completes once it can, and the socket's writer takes its next batch only then; what it cannot
/// send waits in the socket's bounded outbox, as it did behind the async writer.
final class SocketFrameWriter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var context: ChannelHandlerContext?
    /// Whether a close frame went out (or the channel closed, or the writer was cancelled):
    /// nothing more is written.
    private var closed = false
    /// The batch that waits for the channel to become writable again.
    private var waiting: EventLoopPromise<Void>?

    /// Flushes this writer sent (one per batch written), for tests and figures.
    private(set) var flushes = 0

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        closed = true
        resumeWaiting()
    }

    /// Frames written by others (the WebSocket handler's pongs and close) pass on; a close is noted.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if unwrapOutboundIn(data).opcode == .connectionClose { closed = true }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { resumeWaiting() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        resumeWaiting()
        context.fireChannelInactive()
    }

    /// Writes `frames` and flushes once; called on the channel's event loop, `eventLoop`. Returns
    /// `nil` when the channel can take more at once (or nothing is written any more), and otherwise
    /// a future that completes when it can (or when the channel closes or the writer is cancelled).
    func write(_ frames: [WebSocketFrame], on eventLoop: any EventLoop) -> EventLoopFuture<Void>? {
        guard let context, !closed else { return nil }
        for frame in frames { context.write(wrapOutboundOut(frame), promise: nil) }
        flushes += 1
        context.flush()
        guard !context.channel.isWritable, !closed else { return nil }
        // One writer waits at a time; an earlier wait (there is none) would not be left hanging.
        resumeWaiting()
        let promise = eventLoop.makePromise(of: Void.self)
        waiting = promise
        return promise.futureResult
    }

    /// The socket's writer was cancelled: the batch waiting for writability ends, and nothing
    /// more is written (as the WebSocket writer, which checks for cancellation, drops its writes).
    func cancel() {
        closed = true
        resumeWaiting()
    }

    private func resumeWaiting() {
        let promise = waiting
        waiting = nil
        promise?.succeed()
    }
}

extension SocketFrameWriter {
    /// Puts a writer just after the WebSocket frame encoder of an upgraded socket's pipeline;
    /// `nil` when the socket has already closed or has no encoder (its frames then go through
    /// the WebSocket writer, one flush each).
    static func install(on channel: any Channel) async -> NIOLoopBound<SocketFrameWriter>? {
        try? await channel.eventLoop.submit {
            let operations = channel.pipeline.syncOperations
            let encoder = try operations.handler(type: WebSocketFrameEncoder.self)
            let writer = SocketFrameWriter()
            try operations.addHandler(writer, position: .after(encoder))
            return NIOLoopBound(writer, eventLoop: channel.eventLoop)
        }.get()
    }
}
