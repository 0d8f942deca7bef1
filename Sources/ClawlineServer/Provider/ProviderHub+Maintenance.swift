import ClawlineProtocol
import Foundation
import Logging
import WireRuntime

/// Shutdown and the periodic maintenance.
extension ProviderHub {
    // MARK: Shutdown

    /// Closes every socket (authenticated or pairing) with `code` and cancels the answers in progress.
    func closeAll(code: Int, reason: String) {
        for socket in sockets.values { socket.close(code: code, reason: reason) }
        for (deviceID, pending) in pendingPairings {
            pending.expiry.cancel()
            pending.connection.close(code: code, reason: reason)
            publish(.pairingResolved(deviceID: deviceID))
        }
        pendingPairings.removeAll()
        for queue in answerQueues.values { queue.cancel() }
        answerQueues.removeAll()
    }

    /// How many authenticated sockets are open.
    var openSocketCount: Int { sockets.count }

    // MARK: Maintenance

    /// What the server does every tick: closes the sockets of devices revoked or denied meanwhile
    /// (another process, such as `clawline-server devices revoke`, may have changed the store) and
    /// deletes uploads no message referenced within `uploadRetention`.
    func maintain(uploadsDirectory: String) async {
        do {
            let blocked = try await store.blockedDeviceIDs()
            for (deviceID, socket) in sockets where blocked.contains(deviceID) {
                socket.sendError(.tokenRevoked, "this device's token was revoked")
                socket.close(code: ErrorCode.tokenRevoked.closeCode ?? 1008)
                forgetSocket(of: deviceID, in: socket.device?.userID)
                answerQueues.removeValue(forKey: deviceID)?.cancel()
            }
            let retention = TimeInterval(Clawline.Constants.uploadRetention.components.seconds)
            for asset in try await store.removeUnreferencedAssets(uploadedBefore: environment.now().addingTimeInterval(-retention)) {
                try? FileManager.default.removeItem(atPath: AssetRecord.path(of: asset.assetID, in: uploadsDirectory))
            }
        } catch {
            // Cancelled: the server is shutting down.
            guard !(error is CancellationError), !Task.isCancelled else { return }
            logger.error("maintenance failed", metadata: ["error": "\(error)"])
        }
    }
}
