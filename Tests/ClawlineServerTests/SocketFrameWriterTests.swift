import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import ClawlineServer

/// The writer that drains a socket's outbox: a batch in one flush, nothing after a close, nothing
/// taken while the channel cannot take more, and a queued close sent after the frames before it;
/// it tells the keepalive of the pongs it sees arrive.
@Suite struct SocketFrameWriterTests {
    /// An embedded channel whose writer drains an outbox; `readOutbound` sees the frames written,
    /// `closes` the closes the writer asked for, which complete when the test says.
    final class Harness {
        let channel = EmbeddedChannel()
        let pongs = NIOLockedValueBox(0)
        let writer: SocketFrameWriter
        let outbox = Outbox(limit: 1 << 20)
        let closes = NIOLockedValueBox<[(code: Int, reason: String?)]>([])
        private let closeSent: EventLoopPromise<Void>
        private var closeWasSent = false
        let finished: Completion

        init() throws {
            writer = SocketFrameWriter { [pongs] in pongs.withLockedValue { $0 += 1 } }
            try channel.pipeline.syncOperations.addHandler(writer)
            let closeSent = channel.eventLoop.makePromise(of: Void.self)
            self.closeSent = closeSent
            finished = Completion(
                writer.drain(outbox, on: channel.eventLoop) { [closes] code, reason in
                    closes.withLockedValue { $0.append((code, reason)) }
                    return closeSent.futureResult
                })
        }

        deinit {
            if !closeWasSent { closeSent.succeed() }
        }

        /// The close the writer asked for has been sent.
        func completeClose() {
            closeWasSent = true
            closeSent.succeed()
        }

        /// Queues frames with these texts, then lets the event loop run what they woke.
        func send(_ texts: String...) {
            for text in texts { #expect(outbox.push(.frame(ByteBuffer(string: text)))) }
            channel.embeddedEventLoop.run()
        }

        func queue(_ item: Outgoing) {
            #expect(outbox.push(item))
            channel.embeddedEventLoop.run()
        }

        func finishOutbox() {
            outbox.finish()
            channel.embeddedEventLoop.run()
        }

        /// The channel can take more again.
        func becomeWritable() {
            channel.isWritable = true
            channel.pipeline.fireChannelWritabilityChanged()
            channel.embeddedEventLoop.run()
        }

        func written() throws -> [String] {
            var texts: [String] = []
            while let frame = try channel.readOutbound(as: WebSocketFrame.self) {
                switch frame.opcode {
                case .ping: texts.append("ping")
                case .connectionClose: texts.append("close")
                default: texts.append(String(buffer: frame.data))
                }
            }
            return texts
        }
    }

    /// Whether a future has completed, seen through its callback (the embedded loop runs it at once).
    final class Completion: Sendable {
        private let done = NIOLockedValueBox(false)
        init(_ future: EventLoopFuture<Void>) {
            future.whenComplete { [done] _ in done.withLockedValue { $0 = true } }
        }
        var isFulfilled: Bool { done.withLockedValue { $0 } }
    }

    @Test func whatIsQueuedLeavesInOneFlushAndStopsCountingAgainstTheOutbox() throws {
        let socket = try Harness()
        socket.send("a", "b", "c")
        #expect(try socket.written() == ["a", "b", "c"])
        #expect(socket.writer.flushes == 1, "a burst queued before the writer ran is one batch")
        #expect(socket.outbox.bytes == 0)
        socket.queue(.ping)
        socket.send("d")
        #expect(try socket.written() == ["ping", "d"] && socket.writer.flushes == 3)
        #expect(!socket.finished.isFulfilled, "the drain goes on until the outbox ends")
        socket.finishOutbox()
        #expect(socket.finished.isFulfilled)
    }

    @Test func everyPongThatArrivesIsToldAndEveryFramePassesOn() throws {
        let socket = try Harness()
        let opcodes: [WebSocketOpcode] = [.pong, .text, .ping, .pong]
        for opcode in opcodes {
            try socket.channel.writeInbound(WebSocketFrame(fin: true, opcode: opcode, data: ByteBuffer(string: "x")))
        }
        #expect(socket.pongs.withLockedValue { $0 } == 2)
        var passed: [WebSocketOpcode] = []
        while let frame = try socket.channel.readInbound(as: WebSocketFrame.self) { passed.append(frame.opcode) }
        #expect(passed == opcodes, "the WebSocket handler after the writer still sees every frame, pongs included")
    }

    @Test func nothingIsWrittenAfterTheWebSocketHandlersCloseFrame() throws {
        let socket = try Harness()
        socket.send("before")
        // The WebSocket handler's own close passes through the writer.
        try socket.channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer())).wait()
        socket.send("after")
        #expect(try socket.written() == ["before", "close"])
        #expect(socket.writer.flushes == 1)
        #expect(socket.outbox.bytes == 0, "what is dropped stops counting too")
    }

    @Test func nothingIsTakenWhileTheChannelCannotTakeMore() throws {
        let socket = try Harness()
        socket.channel.isWritable = false
        socket.send("a", "b")
        #expect(try socket.written() == [])
        #expect(socket.outbox.bytes == 2, "what the socket cannot take waits in its bounded outbox")
        socket.becomeWritable()
        #expect(try socket.written() == ["a", "b"] && socket.writer.flushes == 1)
        #expect(socket.outbox.bytes == 0)
    }

    @Test func aQueuedCloseIsSentAfterTheFramesBeforeItAndEndsTheDrain() throws {
        let socket = try Harness()
        socket.send("a")
        socket.queue(.close(code: 4001, reason: "bye"))
        socket.send("late")
        #expect(try socket.written() == ["a"])
        #expect(socket.closes.withLockedValue { $0.map(\.code) } == [4001])
        #expect(socket.closes.withLockedValue { $0.map(\.reason) } == ["bye"])
        #expect(!socket.finished.isFulfilled, "the drain ends once the close was sent")
        socket.completeClose()
        #expect(socket.finished.isFulfilled)
        #expect(socket.outbox.bytes == 4, "the close's reason, sent, no longer counts; the frame after it was never taken")
        socket.finishOutbox()
        #expect(try socket.written() == [] && socket.closes.withLockedValue { $0.count } == 1)
    }

    @Test func aQueuedCloseWaitsUntilTheChannelCanTakeMore() throws {
        let socket = try Harness()
        socket.send("a")
        socket.channel.isWritable = false
        socket.queue(.close(code: 1000, reason: nil))
        #expect(socket.closes.withLockedValue { $0.isEmpty })
        socket.becomeWritable()
        #expect(socket.closes.withLockedValue { $0.map(\.code) } == [1000])
    }

    @Test func aClosedChannelDropsWhatIsLeftAndTheDrainEndsWithTheOutbox() throws {
        let socket = try Harness()
        socket.channel.isWritable = false
        socket.send("a")
        _ = try socket.channel.finish()
        #expect(socket.outbox.bytes == 0, "what a closed socket cannot take is dropped")
        #expect(!socket.finished.isFulfilled)
        socket.finishOutbox()
        #expect(socket.finished.isFulfilled)
    }

    @Test func aCloseQueuedForAClosedChannelIsDroppedAndEndsTheDrain() throws {
        let socket = try Harness()
        _ = try socket.channel.finish()
        socket.queue(.close(code: 1000, reason: "bye"))
        #expect(socket.closes.withLockedValue { $0.isEmpty }, "a closed socket is sent no close frame")
        #expect(socket.finished.isFulfilled && socket.outbox.bytes == 0)
    }

    @Test func aCancelledWriterEndsTheDrainAndWritesNoMore() throws {
        let socket = try Harness()
        socket.channel.isWritable = false
        socket.queue(.close(code: 1000, reason: nil))
        socket.becomeWritable()
        #expect(!socket.finished.isFulfilled, "the close is being sent")
        socket.writer.cancel()
        #expect(socket.finished.isFulfilled)
        socket.send("b")
        #expect(try socket.written() == [])
    }
}
