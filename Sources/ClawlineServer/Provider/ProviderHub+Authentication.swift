import ClawlineProtocol
import Foundation
import Logging
import WireRuntime

/// Authentication of sockets and of HTTP requests.
extension ProviderHub {
    // MARK: Authentication

    /// Answers an `auth`: checks the device and its token, takes over an earlier socket of the
    /// device, then replays what the device missed and re-sends pending approvals to an admin.
    ///
    /// The socket is registered, *held*, before the replay is read: an event committed while the
    /// store is read is broadcast to it and waits, and after the replay it goes out unless the
    /// replay carried it. So every event reaches the socket exactly once, replayed or live.
    ///
    /// `checkedToken` is what the token proved, checked once as the frame arrived.
    func authenticate(_ auth: Auth, checkedToken: Result<DeviceClaims, TokenRejection>, on connection: ServerConnection) async throws {
        guard let device = try await verify(auth, checkedToken: checkedToken, on: connection) else { return }
        connection.authenticate(device)
        identified(connection)
        connection.hold()
        if let previous = registry.register(connection, as: device) {
            if faults.has(.takeoverCancelsTheStream) { answers.cancel(device.deviceID) }
            if faults.has(.takeoverWithoutSessionReplaced) {
                previous.close(code: 1000)
            } else {
                previous.fail(.sessionReplaced, "this device connected again on another socket")
            }
        }
        publish(.takeover(deviceID: device.deviceID))
        // The streams in progress as the socket registered: later snapshots are held for it.
        let snapshots = answers.snapshots(of: device.userID)
        let page: ReplayPage
        let cursor = faults.has(.replayIgnoresCursor) ? nil : auth.lastMessageId.wrapped
        do {
            let (store, now) = (store, environment.now())
            page = try await storeCalls.read {
                try await store.markSeen(device.deviceID, at: now)
                return try await store.events(userID: device.userID, after: cursor, limit: Clawline.Constants.maxReplayEvents)
            }
        } catch {
            registry.forget(device.deviceID, ifItIs: connection)
            throw error
        }
        guard !connection.isClosed else { return }
        connection.send(
            .authResult(
                .success(
                    userId: UserId(device.userID), sessionId: SessionId(connection.sessionID), replayCount: page.events.count,
                    replayTruncated: page.truncated, historyReset: page.cursorUnknown, isAdmin: device.isAdmin)))
        metrics.replayed(page.events.count)
        for event in page.events { connection.send(OutboundFrame(event)) }
        // Streams in progress for the account continue on this socket from their snapshot at
        // registration (unless the replay carried the stream's final message); the held frames
        // that follow carry the later ones.
        let replayed = Set(page.events.map(\.eventID))
        for snapshot in snapshots where !replayed.contains(snapshot.id.rawValue) {
            connection.send(.message(snapshot))
        }
        // Live events from here go out in the account's order, after the replay's newest.
        connection.startNumbering(after: page.newestNumber, cursor: page.events.last?.eventID ?? (page.cursorUnknown ? nil : cursor))
        connection.release()
        if device.isAdmin, !faults.has(.pendingRequestsNotResent) {
            for request in pairing.approvalRequests { connection.send(request) }
        }
    }

    /// The device an `auth` proves, or `nil` after refusing it as the contract says.
    private func verify(
        _ auth: Auth, checkedToken: Result<DeviceClaims, TokenRejection>, on connection: ServerConnection
    ) async throws -> AuthenticatedDevice? {
        let deviceID = auth.deviceId.rawValue
        if pairing.pending(deviceID) != nil {
            refuse(connection, .deviceNotApproved)
            return nil
        }
        let store = store
        guard let record = try await storeCalls.read({ try await store.device(deviceID) }), record.status != .denied,
            let userID = record.userID
        else {
            refuse(connection, .authFailed)
            return nil
        }
        guard record.status != .revoked else {
            refuse(connection, .tokenRevoked)
            return nil
        }
        let claims: DeviceClaims
        do throws(TokenRejection) {
            claims = try checkedToken.get()
        } catch {
            refuse(connection, error == .expired ? .tokenExpired : .authFailed)
            return nil
        }
        guard claims.userID == userID else {
            refuse(connection, .authFailed)
            return nil
        }
        // A token of an earlier pairing of this device (removed, then paired again) is void.
        guard claims.iat.value >= record.pairedAt else {
            refuse(connection, .tokenRevoked)
            return nil
        }
        return AuthenticatedDevice(deviceID: deviceID, userID: userID, isAdmin: record.isAdmin, pairedAt: record.pairedAt)
    }

    func refuse(_ connection: ServerConnection, _ reason: AuthFailureReason) {
        connection.send(.authResult(.failure(reason: reason)))
        connection.closeAsTheRulesSay()
    }

    /// Forgets a socket that closed; the device's queued answers go when its last socket does. A
    /// pairing request that waited on it stays for its lifetime (``PairingDesk``): the device
    /// takes it over when it asks again, and a decision made meanwhile is kept for it.
    func disconnected(_ connection: ServerConnection) {
        connections[ObjectIdentifier(connection)] = nil
        identified(connection)
        guard let device = connection.device, registry.forget(device.deviceID, ifItIs: connection) != nil else { return }
        // The contract: "v1 cancels the stream when the originating socket closes".
        if !faults.has(.streamOutlivesItsSocket) { answers.cancel(device.deviceID) }
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
