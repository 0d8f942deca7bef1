import ClawlineProtocol
import Foundation
import Logging
import WireRuntime

/// Pairing: the first admin, pending requests and admins' decisions.
extension ProviderHub {
    // MARK: Pairing

    /// Answers a `pair_request`: the first device ever becomes admin at once; a known device is
    /// answered from its record; others wait for an admin's decision. A device whose request
    /// already waits takes it over on this socket (its lifetime goes on; admins are not asked again).
    func pair(_ request: PairRequest, on connection: ServerConnection) async throws {
        identified(connection)
        let deviceID = request.deviceId.rawValue
        switch try await standing(of: deviceID, on: connection) {
        case .tookOver: return
        case .known(let record):
            try await answerKnownDevice(record, request: request, on: connection)
            return
        case .unknown: break
        }
        if !hasAdmin {
            // The store decides the race, across every node sharing it.
            let record = request.record(userID: AccountID.mint(), isAdmin: true, pairedAt: environment.now())
            if try await store.saveFirstAdmin(record), let userID = record.userID {
                hasAdmin = true
                try await deliverToken(to: deviceID, userID: userID, isAdmin: true, on: connection)
                return
            }
            hasAdmin = true
        }
        if takeOver(deviceID, on: connection) { return }
        // A request that waits on another node moves here: it is counted already, and the
        // admins everywhere were asked already.
        let moved = pairing.waitsElsewhere(deviceID)
        if !moved {
            guard pairing.count < Clawline.Constants.pendingPairingCapacity else {
                connection.fail(.rateLimited, "too many devices are waiting for approval; try again later")
                return
            }
            if let address = connection.remoteAddress, pairing.count(from: address) >= limits.maxPendingPairingsPerAddress {
                connection.fail(.rateLimited, "too many devices from this address are waiting for approval; try again later")
                return
            }
        }
        let expiry = Task { [environment, limits] in
            try? await environment.clock.sleep(for: limits.pairingRequestLifetime)
            guard !Task.isCancelled else { return }
            self.expirePairing(deviceID)
        }
        pairing.wait(PairingDesk.Pending(request: request, connection: connection, expiry: expiry))
        if !moved { askAdmins(request.approvalRequest) }
        publish(.pairingPending(deviceID: deviceID, frame: request.approvalRequest.encodedText()))
    }

    /// What a `pair_request` finds of its device once nothing about it is in flight on this node.
    enum PairingStanding {
        /// A request of the device waited here; this socket took it over.
        case tookOver
        /// The store knows the device (decided, paired or revoked).
        case known(DeviceRecord)
        /// Neither this node nor the store knows the device.
        case unknown
    }

    /// Looks `deviceID` up for a `pair_request` on `connection`. A request waiting here is taken
    /// over before anything is awaited, so a decision taken meanwhile answers this socket. A
    /// decision whose outcome is still being stored is waited for, so the store's answer includes
    /// it. Either may begin while the store is asked (the hub is reentrant), so it is asked again.
    func standing(of deviceID: String, on connection: ServerConnection) async throws -> PairingStanding {
        while true {
            if takeOver(deviceID, on: connection) { return .tookOver }
            if pairing.isBeingDecided(deviceID) {
                await withCheckedContinuation { pairing.waitForDecision(deviceID, $0) }
                continue
            }
            let record = try await store.device(deviceID)
            if pairing.pending(deviceID) != nil || pairing.isBeingDecided(deviceID) { continue }
            return record.map(PairingStanding.known) ?? .unknown
        }
    }

    /// Moves the request of `deviceID` waiting here, if any, to `connection`; returns whether
    /// there was one. The original request and its timer stay; the answer goes to the newest socket.
    func takeOver(_ deviceID: String, on connection: ServerConnection) -> Bool {
        guard var pending = pairing.pending(deviceID) else { return false }
        pending.connection = connection
        pairing.wait(pending)
        return true
    }

    /// Sends a `pair_approval_request` to the admins connected to this node.
    func askAdmins(_ approvalRequest: ServerFrame) {
        let frame = OutboundFrame(approvalRequest)
        for socket in registry.admins { socket.send(frame, live: true) }
    }

    func answerKnownDevice(_ record: DeviceRecord, request: PairRequest, on connection: ServerConnection) async throws {
        switch record.status {
        case .denied, .revoked:
            let undelivered = record.pairingNote == .denialUndelivered
            if undelivered { try await store.setPairingNote(.none, of: record.deviceID) }
            fail(connection, undelivered ? .pairDenied : .pairRejected)
        case .approved:
            // A device that never authenticated may fetch its token again: any time while it was
            // never delivered, once within ten minutes of pairing otherwise.
            let recent = environment.now().timeIntervalSince(record.pairedAt) < Self.reissueWindow
            let undelivered = record.pairingNote == .tokenUndelivered
            guard record.lastSeen == nil, let userID = record.userID, undelivered || (recent && record.pairingNote == .none) else {
                connection.fail(.invalidMessage, "this device is already paired; authenticate with its token")
                return
            }
            // Delivered now (or noted undelivered again if the socket closed meanwhile).
            try await store.setPairingNote(undelivered ? .none : .tokenReissued, of: record.deviceID)
            try await deliverToken(to: record.deviceID, userID: userID, isAdmin: record.isAdmin, on: connection)
        }
    }

    /// How long after pairing a device that never authenticated may ask for its token once more.
    static let reissueWindow: TimeInterval = 600

    /// Sends a device its token, or notes in the store that its socket had closed (so it may ask
    /// again, on any node).
    func deliverToken(to deviceID: String, userID: String, isAdmin: Bool, on connection: ServerConnection?) async throws {
        let token = try await tokens.issue(userID: userID, deviceID: deviceID, isAdmin: isAdmin, now: environment.now())
        if let connection, !connection.isClosed {
            connection.send(.pairResult(.success(token: token, userId: UserId(userID))))
            // The client closes the pairing socket; a provider may close it too.
            if faults.has(.pairingSocketClosedAfterSuccess) { connection.close(code: 1000) }
        } else {
            try await store.setPairingNote(.tokenUndelivered, of: deviceID)
        }
    }

    func fail(_ connection: ServerConnection, _ reason: PairFailureReason) {
        connection.send(.pairResult(.failure(reason: reason)))
        connection.closeAsTheRulesSay()
    }

    /// Ends a request no admin decided within its lifetime: its device hears `pair_timeout` if it
    /// has a socket open; otherwise its next `pair_request` starts a new request.
    func expirePairing(_ deviceID: String) {
        guard let pending = pairing.resolve(deviceID) else { return }
        publish(.pairingResolved(deviceID: deviceID))
        if let connection = pending.openConnection { fail(connection, .pairTimeout) }
    }

    /// Applies an admin's `pair_decision`; the first decision wins, later ones are `invalid_message`.
    /// A request waiting on another node is decided there.
    func decide(_ decision: PairDecision, by admin: AuthenticatedDevice, on connection: ServerConnection) async throws {
        // The session rules refuse a member's decision before it gets here; the hub holds the
        // rule too, so no path around them approves a device.
        guard admin.isAdmin || faults.has(.membersMayDecide) else {
            connection.sendError(.invalidMessage, "only an admin device may decide pairing requests")
            return
        }
        if decision.approve {
            guard let userID = decision.userId?.rawValue else {
                connection.sendError(.invalidMessage, "approving a device needs a userId")
                return
            }
            // An existing account keeps whatever form its id has; a new one is `user_<uuid4>`.
            let refusesAll = faults.has(.newAccountsRefused)
            if !AccountID.isWellFormed(userID) || refusesAll, try await !store.accountExists(userID) {
                connection.sendError(.invalidMessage, AccountID.refusal(userID))
                return
            }
        }
        let deviceID = decision.deviceId.rawValue
        if pairing.pending(deviceID) == nil, pairing.resolvedElsewhere(deviceID) {
            publish(.decision(deviceID: deviceID, approve: decision.approve, userID: decision.userId?.rawValue, adminDeviceID: admin.deviceID))
            return
        }
        guard try await apply(deviceID, approve: decision.approve, userID: decision.userId?.rawValue) else {
            connection.sendError(.invalidMessage, Self.notPending(deviceID))
            return
        }
    }

    static func notPending(_ deviceID: String) -> String {
        "no pairing request of device '\(deviceID)' is pending (it was decided or expired)"
    }

    /// Decides the request waiting on this node for `deviceID`; `false` when there is none. The
    /// answer goes to the device's latest socket; with none open, the store notes it for the
    /// device's next `pair_request` (a token to deliver, or `pair_denied`).
    func apply(_ deviceID: String, approve: Bool, userID: String?) async throws -> Bool {
        // Until its outcome is stored, the device's next `pair_request` waits for it (``standing``).
        guard let pending = pairing.takeForDecision(deviceID) else { return false }
        defer { pairing.decisionStored(deviceID) }
        publish(.pairingResolved(deviceID: deviceID))
        let connection = pending.openConnection
        if approve, let userID {
            try await store.save(pending.request.record(userID: userID, pairedAt: environment.now()))
            try await deliverToken(to: deviceID, userID: userID, isAdmin: false, on: connection)
        } else {
            var record = pending.request.record(userID: nil, pairedAt: environment.now())
            record.pairingNote = connection == nil ? .denialUndelivered : .none
            try await store.save(record)
            guard let connection else { return true }
            if faults.has(.denialLeavesSocketOpen) {
                connection.send(.pairResult(.failure(reason: .pairDenied)))
            } else {
                fail(connection, .pairDenied)
            }
        }
        return true
    }
}
