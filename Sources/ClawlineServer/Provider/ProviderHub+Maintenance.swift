import ClawlineProtocol
import Foundation
import Logging
import WireRuntime

/// Shutdown and the periodic maintenance.
extension ProviderHub {
    // MARK: Maintenance

    /// What the server does every tick: closes the sockets of devices revoked, denied, removed
    /// or paired again meanwhile (another process, such as `clawline-server devices revoke`, may
    /// have changed the store), closes sockets past their authentication deadline, and deletes
    /// uploads no message referenced within `uploadRetention`.
    func maintain(uploadsDirectory: String) async {
        sampleMetrics()
        closeUnidentifiedSockets()
        rateLimits.prune(now: environment.elapsed())
        // Taken before the store is read: a device that authenticates meanwhile is looked up next tick.
        let recent = registry.takeRecentlyRegistered()
        do {
            // Every connected device is looked up when a device changed since the last full look
            // (the revision is read first, so a change during the look shows next tick); otherwise
            // only those that authenticated since, whose records may predate a change the last
            // look saw. Only the sockets looked up are judged: one that authenticated while the
            // store was read (the actor is free meanwhile) has no record here, and is looked up
            // next tick.
            let revision = try await store.devicesRevision()
            let everyDevice = revision == nil || revision != devicesRevisionLookedUp
            devicesRevisionLookedUp = nil
            let looked = everyDevice ? registry.all : recent
            let records = Dictionary(
                try await store.devices(withIDs: Array(looked.keys)).map { ($0.deviceID, $0) }, uniquingKeysWith: { first, _ in first })
            for (deviceID, socket) in looked where registry.socket(of: deviceID) === socket {
                guard let device = socket.device, !Self.mayStay(device, as: records[deviceID]) else { continue }
                evict(deviceID, .tokenRevoked, "this device's token was revoked")
            }
            devicesRevisionLookedUp = revision
            let retention = TimeInterval(limits.uploadRetention.components.seconds)
            for asset in try await store.removeUnreferencedAssets(uploadedBefore: environment.now().addingTimeInterval(-retention)) {
                try? FileManager.default.removeItem(atPath: AssetRecord.path(of: asset.assetID, in: uploadsDirectory))
            }
        } catch {
            // Cancelled: the server is shutting down.
            guard !(error is CancellationError), !Task.isCancelled else { return }
            logger.error("maintenance failed", metadata: ["error": "\(error)"])
        }
    }

    /// Whether a device authenticated on a socket may keep it, as the store now knows it: still
    /// approved, in the same account, under the same pairing.
    static func mayStay(_ device: AuthenticatedDevice, as record: DeviceRecord?) -> Bool {
        guard let record else { return false }
        return record.status == .approved && record.userID == device.userID && record.pairedAt == device.pairedAt
    }

    /// Closes (1008) the sockets that sent neither a successful `auth` nor a `pair_request`
    /// within `limits.authenticationTimeout` of opening.
    func closeUnidentifiedSockets() {
        let now = environment.elapsed()
        for (id, connection) in unidentified where now - connection.openedAt >= limits.authenticationTimeout {
            unidentified[id] = nil
            connection.close(code: 1008, reason: "authenticate or ask to pair within \(limits.authenticationTimeout)")
        }
    }
}
