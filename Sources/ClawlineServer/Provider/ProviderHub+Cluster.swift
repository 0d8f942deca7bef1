import ClawlineProtocol
import Foundation
import Logging

/// What the other nodes say.
extension ProviderHub {
    // MARK: Cluster

    func receive(_ message: ClusterMessage) async {
        switch message {
        case .accountFrame(let userID, let text, let number):
            guard case .decoded(let frame, _) = ServerFrame.decode(text: text) else {
                logger.error("another node sent a frame that does not decode; it is dropped", metadata: ["bytes": "\(text.utf8.count)"])
                return
            }
            registry.deliver(OutboundFrame(frame, number: number), to: userID)
        case .takeover(let deviceID):
            evict(deviceID, .sessionReplaced, "this device connected again on another node")
        case .pairingPending(let deviceID, let text):
            guard case .decoded(let frame, _) = ServerFrame.decode(text: text) else { return }
            // A request already known (it waited here or elsewhere) moved nodes: asked about before.
            if !pairing.waitElsewhere(deviceID, approvalRequest: frame) { askAdmins(frame) }
        case .pairingResolved(let deviceID):
            pairing.resolvedElsewhere(deviceID)
        case .decision(let deviceID, let approve, let userID, let adminDeviceID):
            do {
                if try await !apply(deviceID, approve: approve, userID: userID) {
                    publish(.decisionRefused(deviceID: deviceID, adminDeviceID: adminDeviceID))
                }
            } catch {
                logger.error("a decision from another node could not be applied", metadata: ["error": "\(error)"])
            }
        case .decisionRefused(let deviceID, let adminDeviceID):
            registry.socket(of: adminDeviceID)?.sendError(.invalidMessage, Self.notPending(deviceID))
        case .resumed:
            await catchUp()
        }
    }

    /// Sends every socket on this node the stored events it may have missed while the node heard
    /// nothing from the others (see ``catchUp(_:)``).
    func catchUp() async {
        var caughtUp = 0
        for connection in registry.all.values {
            if await catchUp(connection) { caughtUp += 1 }
        }
        logger.info("caught up after missing other nodes' messages", metadata: ["sockets": "\(caughtUp)"])
    }

    /// Sends a socket the stored events it may have missed: it is held, the events after its
    /// catch-up cursor are read and sent (those it already sent are not sent again, and numbered
    /// ones go in their account's order), then what was held goes out. A socket that missed more
    /// than a replay carries is closed with 1013, to reconnect and replay. Returns whether it was
    /// caught up.
    @discardableResult
    func catchUp(_ connection: ServerConnection) async -> Bool {
        guard let device = connection.device else { return false }
        connection.hold()
        defer { connection.release() }
        do {
            let (store, cursor) = (store, connection.catchUpCursor())
            let page = try await storeCalls.read {
                try await store.events(userID: device.userID, after: cursor, limit: Clawline.Constants.maxReplayEvents)
            }
            guard !page.truncated else {
                connection.close(code: ServerConnection.tooFarBehindCode, reason: "too many events were missed; reconnect")
                return false
            }
            for event in page.events { connection.send(OutboundFrame(event)) }
            return true
        } catch {
            logger.error(
                "a socket could not be caught up; it is closed to replay", metadata: ["device": "\(device.deviceID)", "error": "\(error)"])
            connection.close(code: 1011, reason: "the server could not catch up; reconnect")
            return false
        }
    }

    /// Watches a socket whose account's event `number` has not reached it while later ones have
    /// (another node's event still on the bus, or one whose node stopped before telling the
    /// others). Each time the socket still waits for the same event after
    /// ``ProviderLimits/missingEventWait``, the missing events are read from the store. If the
    /// store lacks them too (which its ordering rule rules out), the socket gives up on them
    /// rather than stall. The watch ends when nothing waits.
    func watchMissingEvent(_ number: Int, on connection: ServerConnection) async {
        var missing = number
        var fetched = false
        while true {
            do {
                try await environment.keepaliveClock.sleep(for: limits.missingEventWait)
            } catch {
                return
            }
            guard let now = connection.missingEvent() else { return }
            if now != missing {
                (missing, fetched) = (now, false)
            } else if !fetched {
                logger.info("an event did not reach this node in time; it is read from the store", metadata: ["number": "\(missing)"])
                await catchUp(connection)
                fetched = true
            } else if let skipped = connection.skipMissingEvents() {
                logger.error("events the store does not hold were skipped", metadata: ["numbers": "\(skipped)"])
                fetched = false
            }
        }
    }
}
