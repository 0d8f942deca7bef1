import NIOCore

/// The marks a socket's writer sends down its channel around a batch of frames, so the batch
/// leaves in one flush (one `writev`) rather than one flush per frame.
///
/// Hummingbird's `WebSocketOutboundWriter` writes and flushes every frame on its own; it has no
/// call that writes several frames with one flush. The writer instead sends ``begin`` before a
/// batch and ``end`` after it as user outbound events: they reach the event loop in the same
/// order as the frames (each is one task on the channel's loop), and ``FlushBatcher`` holds the
/// frames' flushes between them.
enum OutboundBatch: Sendable {
    /// Flushes are held from here…
    case begin
    /// …until here, where one flush sends everything written since ``begin``.
    case end
}

/// Holds flushes between an ``OutboundBatch/begin`` and its ``OutboundBatch/end`` and sends one
/// flush at the end. Sits at the head of a socket's pipeline (nearest the network).
///
/// Held data is flushed early, so nothing waits on a batch that cannot end:
/// - while the channel is not writable: a flush then passes at once, and a channel that stops
///   being writable gets what is held (a held write counts toward the high watermark, and the
///   writer waits for writability, which only flushed data can bring back; one large frame
///   crosses the watermark before its own flush arrives);
/// - before a close, whose pending writes would otherwise be dropped.
final class FlushBatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundIn = NIOAny

    /// Whether a batch is open.
    private var holding = false
    /// Whether a flush arrived while the batch was open.
    private var flushHeld = false

    /// Flushes that reached the network since the handler was added (for tests and figures).
    private(set) var flushesPassed = 0

    func flush(context: ChannelHandlerContext) {
        if holding, context.channel.isWritable {
            flushHeld = true
        } else {
            passFlush(context)
        }
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let mark = event as? OutboundBatch else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        switch mark {
        case .begin:
            holding = true
        case .end:
            holding = false
            if flushHeld { passFlush(context) }
        }
        promise?.succeed()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !context.channel.isWritable, flushHeld { passFlush(context) }
        context.fireChannelWritabilityChanged()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if flushHeld { passFlush(context) }
        context.close(mode: mode, promise: promise)
    }

    private func passFlush(_ context: ChannelHandlerContext) {
        flushHeld = false
        flushesPassed += 1
        context.flush()
    }
}

extension FlushBatcher {
    /// Puts a batcher at the head of an upgraded socket's pipeline; `false` when the socket has
    /// already closed (its writer then flushes frame by frame, as without one).
    static func install(on channel: any Channel) async -> Bool {
        do {
            try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(FlushBatcher(), position: .first)
            }.get()
            return true
        } catch {
            return false
        }
    }
}
