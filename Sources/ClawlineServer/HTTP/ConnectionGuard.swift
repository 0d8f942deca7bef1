import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// How many connections each IP address has open, against a cap.
final class AddressConnectionCounter: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Counts a new connection from `address`; `false` (and nothing counted) when the address
    /// already has `limit` open.
    func open(_ address: String) -> Bool {
        counts.withLockedValue { counts in
            let count = counts[address, default: 0]
            guard count < limit else { return false }
            counts[address] = count + 1
            return true
        }
    }

    /// Forgets a connection of `address`.
    func close(_ address: String) {
        counts.withLockedValue { counts in
            let count = counts[address, default: 1] - 1
            counts[address] = count > 0 ? count : nil
        }
    }

    /// The connections open from `address`.
    func count(of address: String) -> Int { counts.withLockedValue { $0[address, default: 0] } }
}

/// The first handler of every connection, before HTTP: it closes a connection past its
/// address's cap at once, and one whose first request head (up to the blank line) has not
/// arrived within the header timeout. Once the head is in, it steps out of the pipeline; the
/// address's count is kept until the connection closes, whatever it became (HTTP or WebSocket).
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let counter: AddressConnectionCounter
    private let headerTimeout: TimeAmount
    private let logger: Logger
    private var deadline: Scheduled<Void>?
    /// How many bytes of "\r\n\r\n" the head's end matched so far.
    private var matched = 0

    init(counter: AddressConnectionCounter, headerTimeout: TimeAmount, logger: Logger) {
        self.counter = counter
        self.headerTimeout = headerTimeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if let address = context.channel.remoteAddress?.ipAddress {
            guard counter.open(address) else {
                logger.debug("a connection over the address's cap was closed", metadata: ["address": "\(address)", "cap": "\(counter.limit)"])
                context.close(promise: nil)
                return
            }
            let counter = counter
            context.channel.closeFuture.whenComplete { _ in counter.close(address) }
        }
        let channel = context.channel
        let logger = logger
        deadline = context.eventLoop.scheduleTask(in: headerTimeout) {
            logger.debug("a connection sent no complete request head in time; closed")
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if deadline != nil, headEnds(in: bytes) {
            deadline?.cancel()
            deadline = nil
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    /// Whether the blank line that ends a request head is complete within `bytes` (with what
    /// came before).
    private func headEnds(in bytes: ByteBuffer) -> Bool {
        let end: [UInt8] = [13, 10, 13, 10]
        for byte in bytes.readableBytesView {
            if byte == end[matched] {
                matched += 1
                if matched == end.count { return true }
            } else {
                matched = byte == 13 ? 1 : 0
            }
        }
        return false
    }
}

/// A server child channel with a ``ConnectionGuard`` in front of `base`'s handlers.
struct GuardedChildChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let counter: AddressConnectionCounter
    let headerTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(
                ConnectionGuard(counter: counter, headerTimeout: headerTimeout, logger: logger), position: .last)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
