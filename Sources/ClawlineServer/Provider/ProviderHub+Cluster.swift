import ClawlineProtocol
import Foundation
import Logging

/// What the other nodes say.
extension ProviderHub {
    // MARK: Cluster

    func receive(_ message: ClusterMessage) async {
        switch message {
        case .accountFrame(let userID, let text):
            guard case .decoded(let frame, _) = ServerFrame.decode(text: text) else {
                logger.error("another node sent a frame that does not decode; it is dropped", metadata: ["bytes": "\(text.utf8.count)"])
                return
            }
            registry.deliver(OutboundFrame(frame), to: userID)
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
    /// nothing from the others: each socket is held, the events after its catch-up cursor are read
    /// and sent (those it already sent are not sent again), then what was held goes out. A socket
    /// that missed more than a replay carries is closed with 1013, to reconnect and replay.
    func catchUp() async {
        var caughtUp = 0
        for (deviceID, connection) in registry.all {
            guard let device = connection.device else { continue }
            connection.hold()
            do {
                let page = try await store.events(
                    userID: device.userID, after: connection.catchUpCursor(), limit: Clawline.Constants.maxReplayEvents)
                if page.truncated {
                    connection.close(code: ServerConnection.tooFarBehindCode, reason: "too many events were missed; reconnect")
                } else {
                    for event in page.events { connection.send(OutboundFrame(event)) }
                    caughtUp += 1
                }
            } catch {
                logger.error("a socket could not be caught up; it is closed to replay", metadata: ["device": "\(deviceID)", "error": "\(error)"])
                connection.close(code: 1011, reason: "the server could not catch up; reconnect")
            }
            connection.release()
        }
        logger.info("caught up after missing other nodes' messages", metadata: ["sockets": "\(caughtUp)"])
    }
}
