import NIOCore
import NIOEmbedded
import Testing

@testable import ClawlineServer

/// The batcher a socket's writer marks its batches for: the frames written between the marks
/// leave in one flush, and nothing it holds waits on a batch that cannot end.
@Suite struct FlushBatcherTests {
    /// An embedded channel with a batcher at its head; `readOutbound` sees only flushed writes.
    static func channel() throws -> (EmbeddedChannel, FlushBatcher) {
        let batcher = FlushBatcher()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(batcher, position: .first)
        return (channel, batcher)
    }

    /// Writes and flushes one buffer, as NIO's async channel writer does for every frame.
    static func writeAndFlush(_ text: String, on channel: EmbeddedChannel) {
        channel.write(ByteBuffer(string: text), promise: nil)
        channel.flush()
    }

    static func flushed(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { texts.append(String(buffer: buffer)) }
        return texts
    }

    @Test func framesWrittenBetweenTheMarksLeaveInOneFlushAtTheEnd() throws {
        let (channel, batcher) = try Self.channel()
        channel.triggerUserOutboundEvent(OutboundBatch.begin, promise: nil)
        for text in ["a", "b", "c"] { Self.writeAndFlush(text, on: channel) }
        #expect(try Self.flushed(channel).isEmpty, "nothing leaves while the batch is open")
        channel.triggerUserOutboundEvent(OutboundBatch.end, promise: nil)
        #expect(try Self.flushed(channel) == ["a", "b", "c"])
        #expect(batcher.flushesPassed == 1)
    }

    @Test func outsideABatchEveryFlushPasses() throws {
        let (channel, batcher) = try Self.channel()
        Self.writeAndFlush("a", on: channel)
        #expect(try Self.flushed(channel) == ["a"])
        Self.writeAndFlush("b", on: channel)
        #expect(try Self.flushed(channel) == ["b"])
        #expect(batcher.flushesPassed == 2)
        // A batch with no flush in it sends none at its end.
        channel.triggerUserOutboundEvent(OutboundBatch.begin, promise: nil)
        channel.triggerUserOutboundEvent(OutboundBatch.end, promise: nil)
        #expect(batcher.flushesPassed == 2)
    }

    @Test func aChannelThatStopsBeingWritableGetsWhatIsHeldAtOnce() throws {
        let (channel, batcher) = try Self.channel()
        channel.triggerUserOutboundEvent(OutboundBatch.begin, promise: nil)
        Self.writeAndFlush("a", on: channel)
        // The writer waits for writability, which only flushed data brings back.
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(try Self.flushed(channel) == ["a"])
        #expect(batcher.flushesPassed == 1)
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        Self.writeAndFlush("b", on: channel)
        #expect(try Self.flushed(channel).isEmpty, "the batch is still open")
        channel.triggerUserOutboundEvent(OutboundBatch.end, promise: nil)
        #expect(try Self.flushed(channel) == ["b"])
    }

    @Test func aFlushPassesAtOnceWhileTheChannelIsNotWritable() throws {
        // One large frame crosses the high watermark when it is written, before its flush comes.
        let (channel, batcher) = try Self.channel()
        channel.triggerUserOutboundEvent(OutboundBatch.begin, promise: nil)
        channel.write(ByteBuffer(string: "large"), promise: nil)
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.flush()
        #expect(try Self.flushed(channel) == ["large"], "the writer waits for writability: its flush is not held")
        #expect(batcher.flushesPassed == 1)
    }

    @Test func aCloseSendsWhatIsHeldFirst() throws {
        let (channel, _) = try Self.channel()
        var closedWith: [String]?
        let recorder = CloseRecorder { closedWith = $0 }
        try channel.pipeline.syncOperations.addHandler(recorder, position: .first)
        channel.triggerUserOutboundEvent(OutboundBatch.begin, promise: nil)
        Self.writeAndFlush("goodbye", on: channel)
        channel.close(promise: nil)
        #expect(closedWith == ["goodbye"], "the held frame was flushed before the close passed")
    }

    @Test func otherUserEventsPassThrough() throws {
        let (channel, _) = try Self.channel()
        let recorder = CloseRecorder { _ in }
        try channel.pipeline.syncOperations.addHandler(recorder, position: .first)
        channel.triggerUserOutboundEvent("something else", promise: nil)
        #expect(recorder.userEvents == ["something else"])
    }
}

/// Sits below the batcher (nearest the network): records what was flushed when a close passed,
/// and the user events that reached it.
private final class CloseRecorder: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    private var written: [String] = []
    private var flushed: [String] = []
    private let onClose: ([String]) -> Void
    private(set) var userEvents: [String] = []

    init(onClose: @escaping ([String]) -> Void) { self.onClose = onClose }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        written.append(String(buffer: unwrapOutboundIn(data)))
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        flushed += written
        written = []
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        onClose(flushed)
        context.close(mode: mode, promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if let text = event as? String { userEvents.append(text) }
        context.triggerUserOutboundEvent(event, promise: promise)
    }
}
