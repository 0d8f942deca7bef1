import ClawlineProtocol
import Foundation
import Logging
import WireRuntime

/// Authentication of sockets and of HTTP requests.
extension ProviderHub {
    // MARK: Authentication

    /// Answers an `auth`: checks the device and its token, takes over an earlier socket of the
    /// device, then replays what the device missed and re-sends pending approvals to an admin.
    func authenticate(_ auth: Auth, on connection: ServerConnection) async throws {
        if pendingPairings[auth.deviceId.rawValue] != nil {
            refuse(connection, .deviceNotApproved)
            return
        }
        guard let record = try await store.device(auth.deviceId.rawValue), record.status != .denied, let userID = record.userID else {
            refuse(connection, .authFailed)
            return
        }
        guard record.status != .revoked else {
            refuse(connection, .tokenRevoked)
            return
        }
        let claims: DeviceClaims
        do {
            claims = try await tokens.verify(auth.token, deviceID: auth.deviceId.rawValue, now: environment.now())
        } catch {
            refuse(connection, error == .expired ? .tokenExpired : .authFailed)
            return
        }
        guard claims.userID == userID else {
            refuse(connection, .authFailed)
            return
        }
        // A token of an earlier pairing of this device (removed, then paired again) is void.
        guard claims.iat.value >= record.pairedAt else {
            refuse(connection, .tokenRevoked)
            return
        }
        try await store.markSeen(auth.deviceId.rawValue, at: environment.now())
        let cursor: String? = if case .value(let value) = auth.lastMessageId { value } else { nil }
        let page = try await store.events(userID: userID, after: cursor, limit: Clawline.Constants.maxReplayEvents)
        let device = AuthenticatedDevice(deviceID: auth.deviceId.rawValue, userID: userID, isAdmin: record.isAdmin, pairedAt: record.pairedAt)
        connection.authenticate(device)
        identified(connection)
        connection.beginReplay()
        let previous = sockets.updateValue(connection, forKey: auth.deviceId.rawValue)
        connectedDevices[userID, default: []].insert(auth.deviceId.rawValue)
        connection.send(
            .authResult(
                .success(
                    userId: UserId(userID), sessionId: SessionId(connection.sessionID), replayCount: page.events.count,
                    replayTruncated: page.truncated,
                    isAdmin: record.isAdmin)))
        if let previous, previous !== connection {
            previous.sendError(.sessionReplaced, "this device connected again on another socket")
            previous.close(code: ErrorCode.sessionReplaced.closeCode ?? 1000)
        }
        publish(.takeover(deviceID: auth.deviceId.rawValue))
        var replayed = Set<String>()
        for event in page.events {
            guard case .decoded(let frame, _) = ServerFrame.decode(text: event.frame) else {
                logger.error("a stored event does not decode; it is skipped", metadata: ["event": "\(event.eventID)"])
                continue
            }
            connection.send(frame)
            replayed.insert(event.eventID)
        }
        // Streams in progress for the account continue on this socket from their latest snapshot
        // (unless the replay already carried the stream's final message).
        for snapshot in streamSnapshots.values where snapshot.userID == userID && !replayed.contains(snapshot.message.id.rawValue) {
            connection.send(.message(snapshot.message))
        }
        connection.endReplay(sent: replayed)
        if record.isAdmin {
            let local = pendingPairings.mapValues(\.request.approvalRequest)
            for (_, request) in local.merging(remotePendings, uniquingKeysWith: { mine, _ in mine }).sorted(by: { $0.key < $1.key }) {
                connection.send(request)
            }
        }
    }

    func refuse(_ connection: ServerConnection, _ reason: AuthFailureReason) {
        connection.send(.authResult(.failure(reason: reason)))
        connection.closeAsTheRulesSay()
    }

    /// Forgets a socket that closed: a pairing request waiting on it is dropped (a device that
    /// still wants to pair asks again, as the contract has it every 30 seconds); the device's
    /// queued answers go when its last socket does.
    func disconnected(_ connection: ServerConnection) {
        identified(connection)
        for (deviceID, pending) in pendingPairings where pending.connection === connection {
            pending.expiry.cancel()
            pendingPairings[deviceID] = nil
            publish(.pairingResolved(deviceID: deviceID))
        }
        guard let device = connection.device, sockets[device.deviceID] === connection else { return }
        forgetSocket(of: device.deviceID, in: device.userID)
        answerQueues.removeValue(forKey: device.deviceID)?.cancel()
    }

    // MARK: HTTP

    /// The device a bearer token names, if the token is genuine and the device may use it.
    func authorize(bearer token: String) async throws(HTTPFailure) -> AuthenticatedDevice {
        let claims: DeviceClaims
        do {
            claims = try await tokens.verify(token, now: environment.now())
        } catch {
            throw HTTPFailure(.authFailed, error == .expired ? "the token expired; pair again" : "the token is not valid")
        }
        let record: DeviceRecord?
        do {
            record = try await store.device(claims.deviceId)
        } catch {
            throw HTTPFailure(.serverError, "the device could not be looked up")
        }
        guard let record, record.userID == claims.userID, record.status != .denied else { throw HTTPFailure(.authFailed, "the token is not valid") }
        guard record.status != .revoked, claims.iat.value >= record.pairedAt else {
            throw HTTPFailure(.tokenRevoked, "the device's token was revoked")
        }
        return AuthenticatedDevice(deviceID: record.deviceID, userID: claims.userID, isAdmin: record.isAdmin, pairedAt: record.pairedAt)
    }
}
