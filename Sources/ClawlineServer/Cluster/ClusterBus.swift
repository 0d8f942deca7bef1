import Foundation

/// What one node of a provider tells the others: live frames for an account's devices on other
/// nodes, takeovers, and pairing requests and decisions. Everything durable is in the store;
/// these are the live parts.
public enum ClusterMessage: Sendable, Hashable, Codable {
    /// A frame for every device of an account (an echo, a snapshot, a final answer, typing);
    /// `number` is a stored event's number in its account, when the store numbers events.
    case accountFrame(userID: String, frame: String, number: Int? = nil)
    /// A device authenticated on another node: its socket here, if any, is replaced.
    case takeover(deviceID: String)
    /// A pairing request waits on another node: admins here are asked (`frame` is the
    /// `pair_approval_request`).
    case pairingPending(deviceID: String, frame: String)
    /// The pairing request of a device was decided or expired.
    case pairingResolved(deviceID: String)
    /// An admin here decided a request waiting on another node.
    case decision(deviceID: String, approve: Bool, userID: String?, adminDeviceID: String)
    /// A decision came too late (another was first, or the request expired): the admin hears
    /// `invalid_message` on its node.
    case decisionRefused(deviceID: String, adminDeviceID: String)
    /// Never published: a bus yields it to its own node when it receives again after a time it
    /// may have missed messages (its listening connection was lost). The node then catches its
    /// sockets up from the store.
    case resumed
}

/// How the nodes of one provider reach each other. A node publishes; every other node receives
/// (a node never receives its own messages). Messages from one node arrive in the order it
/// published them.
public protocol ClusterBus: Sendable {
    /// Sends `messages`, in order, to every other node (a node publishes what gathered while its
    /// previous batch was on the way, so a busy node sends few large batches).
    func publish(_ messages: [ClusterMessage]) async
    /// The messages of the other nodes, read by one consumer (the node's hub), and
    /// ``ClusterMessage/resumed`` after any time messages may have been missed.
    var messages: AsyncStream<ClusterMessage> { get }
    /// Whether the bus receives the other nodes' messages now (`/readyz` says a node that does
    /// not is not ready).
    var isListening: Bool { get async }
}

extension ClusterBus {
    /// A bus that is always listening, unless it says otherwise.
    public var isListening: Bool { get async { true } }
}

/// Messages a node has yet to publish: gathered while the previous batch is on the way.
final class ClusterOutbox: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [ClusterMessage] = []
    private let signal: AsyncStream<Void>.Continuation
    private let signals: AsyncStream<Void>

    init() {
        (signals, signal) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues a message.
    func yield(_ message: ClusterMessage) {
        lock.withLock { pending.append(message) }
        signal.yield()
    }

    /// No more messages: ``drain(into:)`` returns once what is queued is published.
    func finish() { signal.finish() }

    /// Publishes batches to `bus` until finished.
    func drain(into bus: any ClusterBus) async {
        for await _ in signals {
            await publishPending(to: bus)
        }
        await publishPending(to: bus)
    }

    private func publishPending(to bus: any ClusterBus) async {
        let batch = lock.withLock {
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        if !batch.isEmpty { await bus.publish(batch) }
    }
}
