import ClawlineProtocol
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Whether the node is draining; read without the hub's actor by the WebSocket upgrade.
final class DrainFlag: Sendable {
    private let value = NIOLockedValueBox(false)

    /// Whether the drain has begun.
    var isSet: Bool { value.withLockedValue { $0 } }

    func set() { value.withLockedValue { $0 = true } }
}

extension ProviderHub {
    /// Starts a drain: `/readyz` answers 503 and new WebSockets are refused from now on.
    func beginDrain() {
        draining.set()
    }

    /// Takes the node out, as a graceful shutdown does, within `timeout`:
    ///
    /// 1. new WebSockets are refused and `/readyz` answers 503;
    /// 2. the assistant's answers in flight are cancelled, as the contract says of a closing
    ///    socket, and each sending device hears `server_error` naming its message, so it sends
    ///    again under a new id (nothing is left half-stored: a cancelled answer is marked failed);
    /// 3. every socket is closed with 1001 (going away), and the clients reconnect elsewhere and
    ///    replay from their cursor;
    /// 4. what this node has yet to tell the others is published.
    ///
    /// Sockets whose peer has not taken its close by the deadline are closed under it. The store
    /// is the caller's to close: every write it acknowledged has committed.
    func drain(within timeout: Duration) async {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        beginDrain()
        for (deviceID, clientMessageIDs) in answers.outstanding {
            for clientMessageID in clientMessageIDs {
                socket(of: deviceID)?.sendError(
                    .serverError, "the server is shutting down; send the message again under a new id", messageID: clientMessageID)
            }
        }
        let cancelled = answers.cancelAll()
        closeAll(code: 1001, reason: "the server is shutting down")
        for queue in cancelled { await queue.finished(before: deadline) }
        while !connections.isEmpty, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        for connection in connections.values { connection.abort() }
        await stopCluster(before: deadline)
    }

    /// Closes every socket (authenticated, pairing, or not yet identified) with `code`.
    func closeAll(code: Int, reason: String) {
        for pending in pairing.resolveAll() {
            publish(.pairingResolved(deviceID: pending.request.deviceId.rawValue))
        }
        for connection in connections.values { connection.close(code: code, reason: reason) }
    }
}

/// Drains the node when the server shuts down gracefully (SIGTERM, SIGINT, or the service
/// group's), before the HTTP server stops.
struct SocketDrain: Service {
    let hub: ProviderHub
    let timeout: Duration

    func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            return
        }
        await hub.drain(within: timeout)
    }
}
