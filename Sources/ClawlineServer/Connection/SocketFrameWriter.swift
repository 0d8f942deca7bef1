import NIOCore
import NIOWebSocket

/// Drains a socket's ``Outbox`` onto the socket, on its event loop, with no task of its own: the
/// outbox wakes the writer when something is queued while it is idle, and the writer takes
/// everything queued, writes it and flushes once.
///
/// A frame sent to many sockets (a broadcast) costs each socket one hop to its event loop, not a
/// task's wake-up and then a hop; an idle socket holds no parked task. Hummingbird's
/// `WebSocketOutboundWriter` hops to the event loop and flushes once per frame, and needs a task
/// to call it.
///
/// The writer sits in the socket's pipeline just after the WebSocket frame decoder (the encoder is
/// before it), so the frames the WebSocket handler writes itself (its pongs and its close) pass
/// through it. It also sees every frame the peer sends before the WebSocket handler answers and
/// swallows the control frames, and tells the keepalive of each pong (``KeepaliveWatch`` pings and
/// closes): a socket has one handler of the server's in its pipeline. Once a close
/// frame has gone out, what is left is dropped, as RFC 6455 asks (no frames after a close). A
/// close the server queues goes through the WebSocket handler (whose close handshake it is), after
/// the frames before it.
///
/// Backpressure: when the channel cannot take more after a flush, the writer takes nothing more
/// from the outbox until it can; what the socket cannot take waits in its bounded outbox. A batch's
/// bytes stop counting against the outbox as they are handed to the channel, before the flush:
/// the outbox then holds only what the peer cannot have received, never frames it has read.
final class SocketFrameWriter: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// Sends a close frame with a code and a reason through the WebSocket handler; the future
    /// completes once it was sent (or could not be).
    typealias Close = @Sendable (_ code: Int, _ reason: String?) -> EventLoopFuture<Void>

    /// The drain in progress: what it drains, how it closes, and the promise of its end.
    private struct Drain {
        let outbox: Outbox
        let close: Close
        let finished: EventLoopPromise<Void>
    }

    private var context: ChannelHandlerContext?
    /// Told of every pong the peer sends (solicited or not: RFC 6455 lets a pong be a heartbeat).
    private let onPong: (@Sendable () -> Void)?
    /// Whether a close frame went out (or the channel closed, or the writer was cancelled):
    /// nothing more is written.
    private var closed = false
    private var drain: Drain?
    /// The close taken from the outbox, waiting for the channel to take more (the frames before
    /// it first), with the bytes it counts against the outbox.
    private var pendingClose: (code: Int, reason: String?, byteCount: Int)?
    /// Whether the queued close is being sent: the drain takes nothing more meanwhile.
    private var closing = false
    /// Whether ``pump()`` runs: a write or a flush may call back into the writer (the channel's
    /// writability changes), and the running pump carries on instead.
    private var pumping = false

    /// Flushes this writer sent (one per batch written), for tests and figures.
    private(set) var flushes = 0

    /// A writer that tells `onPong` of every pong it sees arrive.
    init(onPong: (@Sendable () -> Void)? = nil) {
        self.onPong = onPong
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        closed = true
        pump()
    }

    /// Frames the peer sends pass on; a pong is told to `onPong` first.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if unwrapInboundIn(data).opcode == .pong { onPong?() }
        context.fireChannelRead(data)
    }

    /// Frames written by others (the WebSocket handler's pongs and close) pass on; a close is noted.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if unwrapOutboundIn(data).opcode == .connectionClose { closed = true }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { pump() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        pump()
        context.fireChannelInactive()
    }

    /// Drains `outbox` onto the socket from now on; called once, on the channel's event loop,
    /// `eventLoop`. A close in the outbox is sent with `close`, and ends the drain. The future
    /// completes when the drain is over: the outbox ended and all of it was written (or dropped,
    /// the socket being closed), or its close was sent, or the writer was cancelled.
    func drain(_ outbox: Outbox, on eventLoop: any EventLoop, close: @escaping Close) -> EventLoopFuture<Void> {
        precondition(drain == nil, "a socket's writer drains one outbox")
        let finished = eventLoop.makePromise(of: Void.self)
        drain = Drain(outbox: outbox, close: close, finished: finished)
        let writer = NIOLoopBound(self, eventLoop: eventLoop)
        outbox.startDraining { eventLoop.execute { writer.value.pump() } }
        return finished.futureResult
    }

    /// The socket's server task was cancelled: the drain ends, and nothing more is written (as
    /// the WebSocket writer, which checks for cancellation, drops its writes).
    func cancel() {
        closed = true
        if closing { end() }
        pump()
    }

    /// Writes what the outbox has while the channel can take it.
    private func pump() {
        guard !pumping, let drain, !closing else { return }
        pumping = true
        defer { pumping = false }
        while !closing {
            if let close = pendingClose {
                guard !closed else {
                    pendingClose = nil
                    drain.outbox.written(close.byteCount)
                    return end()
                }
                guard context?.channel.isWritable ?? false else { return }
                pendingClose = nil
                closing = true
                let eventLoop = drain.finished.futureResult.eventLoop
                drain.close(close.code, close.reason).hop(to: eventLoop).assumeIsolated().whenComplete { [self] _ in
                    drain.outbox.written(close.byteCount)
                    end()
                }
                return
            }
            // Nothing more is taken while the channel cannot take it (unless it is dropped anyway).
            guard closed || context?.channel.isWritable ?? false else { return }
            switch drain.outbox.take() {
            case .idle: return
            case .ended: return end()
            case .items(let batch): write(batch, from: drain.outbox)
            }
        }
    }

    /// Writes a batch in one flush, up to a close (kept for when the channel can take more).
    private func write(_ batch: [Outgoing], from outbox: Outbox) {
        var byteCount = 0
        var wrote = false
        for item in batch {
            // Nothing goes after a close: what follows it is dropped.
            guard pendingClose == nil else {
                byteCount += item.byteCount
                continue
            }
            let frame: WebSocketFrame
            switch item {
            case .frame(let json):
                // A text frame over the shared buffer (`.text(String)` would copy it per socket).
                frame = WebSocketFrame(fin: true, opcode: .text, data: json)
            case .ping:
                frame = WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())
            case .close(let code, let reason):
                pendingClose = (code, reason, item.byteCount)
                continue
            }
            byteCount += item.byteCount
            if let context, !closed {
                context.write(wrapOutboundOut(frame), promise: nil)
                wrote = true
            }
        }
        outbox.written(byteCount)
        guard wrote, let context else { return }
        flushes += 1
        context.flush()
    }

    /// The drain is over: the outbox never wakes the writer again.
    private func end() {
        guard let drain else { return }
        self.drain = nil
        closing = false
        drain.outbox.stopDraining()
        drain.finished.succeed()
    }
}

extension SocketFrameWriter {
    /// A drain in progress, seen from the socket's server task.
    struct Running: Sendable {
        let writer: NIOLoopBound<SocketFrameWriter>
        let finished: EventLoopFuture<Void>

        /// Waits until the drain is over; a cancelled wait ends the drain (nothing more is written).
        func wait() async {
            let eventLoop = finished.eventLoop
            await withTaskCancellationHandler {
                try? await finished.get()
            } onCancel: { [writer] in
                eventLoop.execute { writer.value.cancel() }
            }
        }
    }

    /// Puts a writer just after the WebSocket frame decoder of an upgraded socket's pipeline, telling
    /// `onPong` of every pong, and starts draining `outbox` onto it; `nil` when the socket has
    /// already closed or has no decoder (nothing can be written to it).
    static func drain(
        _ outbox: Outbox, onto channel: any Channel, onPong: @escaping @Sendable () -> Void, close: @escaping Close
    ) async -> Running? {
        try? await channel.eventLoop.submit {
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            let writer = SocketFrameWriter(onPong: onPong)
            try operations.addHandler(writer, position: .after(decoder))
            let finished = writer.drain(outbox, on: channel.eventLoop, close: close)
            return Running(writer: NIOLoopBound(writer, eventLoop: channel.eventLoop), finished: finished)
        }.get()
    }
}
