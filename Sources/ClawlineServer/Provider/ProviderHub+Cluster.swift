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
                logger.error("another node sent a frame that does not decode; it is dropped", metadata: ["frame": "\(text.prefix(200))"])
                return
            }
            deliver(frame, to: userID)
        case .takeover(let deviceID):
            guard let socket = sockets[deviceID] else { return }
            socket.sendError(.sessionReplaced, "this device connected again on another node")
            socket.close(code: ErrorCode.sessionReplaced.closeCode ?? 1000)
            forgetSocket(of: deviceID, in: socket.device?.userID)
            answerQueues.removeValue(forKey: deviceID)?.cancel()
        case .pairingPending(let deviceID, let text):
            guard case .decoded(let frame, _) = ServerFrame.decode(text: text) else { return }
            remotePendings[deviceID] = frame
            askAdmins(frame)
        case .pairingResolved(let deviceID):
            remotePendings[deviceID] = nil
        case .decision(let deviceID, let approve, let userID, let adminDeviceID):
            do {
                if try await !apply(deviceID, approve: approve, userID: userID) {
                    publish(.decisionRefused(deviceID: deviceID, adminDeviceID: adminDeviceID))
                }
            } catch {
                logger.error("a decision from another node could not be applied", metadata: ["error": "\(error)"])
            }
        case .decisionRefused(let deviceID, let adminDeviceID):
            sockets[adminDeviceID]?.sendError(.invalidMessage, Self.notPending(deviceID))
        }
    }
}
