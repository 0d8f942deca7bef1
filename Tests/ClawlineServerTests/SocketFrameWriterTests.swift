import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import ClawlineServer

/// The writer a socket's frames leave through: a batch in one flush, nothing after a close, and
/// a batch's future held until the channel can take more.
@Suite struct SocketFrameWriterTests {
    /// An embedded channel with a frame writer; `readOutbound` sees the frames written.
    static func channel() throws -> (EmbeddedChannel, SocketFrameWriter) {
        let writer = SocketFrameWriter()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(writer)
        return (channel, writer)
    }

    static func text(_ text: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: text))
    }

    /// Whether the wait a write returns has ended, seen through its callback (the embedded loop
    /// runs it at once); no future means no wait.
    final class Completion: Sendable {
        private let done = NIOLockedValueBox(false)
        init(_ future: EventLoopFuture<Void>?) {
            guard let future else {
                done.withLockedValue { $0 = true }
                return
            }
            future.whenComplete { [done] _ in done.withLockedValue { $0 = true } }
        }
        var isFulfilled: Bool { done.withLockedValue { $0 } }
    }

    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var texts: [String] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) { texts.append(String(buffer: frame.data)) }
        return texts
    }

    @Test func aBatchLeavesInOneFlush() throws {
        let (channel, writer) = try Self.channel()
        let done = Completion(writer.write(["a", "b", "c"].map(Self.text), on: channel.eventLoop))
        #expect(try Self.written(channel) == ["a", "b", "c"])
        #expect(writer.flushes == 1)
        #expect(done.isFulfilled, "a writable channel takes the next batch at once")
        _ = writer.write([Self.text("d")], on: channel.eventLoop)
        #expect(try Self.written(channel) == ["d"] && writer.flushes == 2)
    }

    @Test func nothingIsWrittenAfterACloseFrame() throws {
        let (channel, writer) = try Self.channel()
        _ = writer.write([Self.text("before")], on: channel.eventLoop)
        // The WebSocket handler's own close passes through the writer.
        try channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer())).wait()
        let done = Completion(writer.write([Self.text("after")], on: channel.eventLoop))
        var opcodes: [WebSocketOpcode] = []
        while let frame = try channel.readOutbound(as: WebSocketFrame.self) { opcodes.append(frame.opcode) }
        #expect(opcodes == [.text, .connectionClose])
        #expect(done.isFulfilled && writer.flushes == 1)
    }

    @Test func aBatchWaitsUntilTheChannelCanTakeMore() throws {
        let (channel, writer) = try Self.channel()
        channel.isWritable = false
        let done = Completion(writer.write([Self.text("a")], on: channel.eventLoop))
        #expect(try Self.written(channel) == ["a"], "the batch is written and flushed even so")
        #expect(!done.isFulfilled, "the socket's writer waits before its next batch")
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(done.isFulfilled)
    }

    @Test func aWaitingBatchEndsWhenTheChannelCloses() throws {
        let (channel, writer) = try Self.channel()
        channel.isWritable = false
        let done = Completion(writer.write([Self.text("a")], on: channel.eventLoop))
        #expect(!done.isFulfilled)
        _ = try channel.finish()
        #expect(done.isFulfilled)
        let late = Completion(writer.write([Self.text("b")], on: channel.eventLoop))
        #expect(late.isFulfilled && writer.flushes == 1)
    }

    @Test func aCancelledWriterStopsWaitingAndWritesNoMore() throws {
        let (channel, writer) = try Self.channel()
        channel.isWritable = false
        let done = Completion(writer.write([Self.text("a")], on: channel.eventLoop))
        #expect(!done.isFulfilled)
        writer.cancel()
        #expect(done.isFulfilled)
        let late = Completion(writer.write([Self.text("b")], on: channel.eventLoop))
        #expect(late.isFulfilled)
        #expect(try Self.written(channel) == ["a"] && writer.flushes == 1)
    }
}
