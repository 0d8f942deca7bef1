import ClawlineProtocol
import Foundation
import Logging
import WireRuntime

/// The provider's live state on one node: which socket each device uses, pending pairings, the
/// assistant streams, and fan-out of events to an account's devices. Storage is the store's.
actor ProviderHub {
    let store: any ProviderStore
    let tokens: TokenAuthority
    let assistant: any Assistant
    let environment: ServerEnvironment
    let logger: Logger

    /// The authenticated socket of each device.
    private var sockets: [String: ServerConnection] = [:]
    /// The devices with a socket, by account (fan-out reads this, not every socket).
    private var connectedDevices: [String: Set<String>] = [:]
    /// Pairing requests waiting for an admin, by device.
    private var pendingPairings: [String: PendingPairing] = [:]
    /// Whether a device already became the first admin (loaded from the store at start).
    private var hasAdmin: Bool
    /// Each device's assistant queue.
    private var answerQueues: [String: AnswerQueue] = [:]
    /// When each account's devices were last sent assistant typing, on the server's clock.
    private var typingSent: [String: [Duration]] = [:]
    /// Devices denied while their pairing socket was closed: their next request hears the denial.
    private var undeliveredDenials: Set<String> = []
    /// Approved devices whose token could not be delivered (the pairing socket had closed).
    private var undeliveredTokens: Set<String> = []
    /// Devices whose token was issued a second time by a repeated `pair_request`.
    private var reissuedTokens: Set<String> = []
    /// The latest snapshot of each stream in progress, by the device whose message it answers.
    private var streamSnapshots: [String: (userID: String, message: ServerMessage)] = [:]

    struct PendingPairing {
        var request: PairRequest
        var connection: ServerConnection
        var expiry: Task<Void, Never>
    }

    init(store: any ProviderStore, tokens: TokenAuthority, assistant: any Assistant, environment: ServerEnvironment, logger: Logger) async throws {
        self.store = store
        self.tokens = tokens
        self.assistant = assistant
        self.environment = environment
        self.logger = logger
        hasAdmin = try await store.devices().contains { $0.isAdmin && $0.status == .approved }
    }

    // MARK: Pairing

    /// Answers a `pair_request`: the first device ever becomes admin at once; a known device is
    /// answered from its record; others wait for an admin's decision.
    func pair(_ request: PairRequest, on connection: ServerConnection) async throws {
        if let record = try await store.device(request.deviceId) {
            try await answerKnownDevice(record, request: request, on: connection)
            return
        }
        if !hasAdmin {
            hasAdmin = true
            let userID = UUID().uuidString.lowercased()
            try await approve(request, userID: userID, isAdmin: true, on: connection)
            return
        }
        if var pending = pendingPairings[request.deviceId] {
            // The original request and its timer stay; the answer goes to the newest socket.
            pending.connection = connection
            pendingPairings[request.deviceId] = pending
            return
        }
        guard pendingPairings.count < Clawline.Constants.pendingPairingCapacity else {
            connection.sendError(.rateLimited, "too many devices are waiting for approval; try again later")
            connection.close(code: ErrorCode.rateLimited.closeCode ?? 1008)
            return
        }
        let deviceID = request.deviceId
        let expiry = Task { [environment] in
            try? await environment.clock.sleep(for: Clawline.Constants.pendingPairingTTL)
            guard !Task.isCancelled else { return }
            self.expirePairing(deviceID)
        }
        pendingPairings[deviceID] = PendingPairing(request: request, connection: connection, expiry: expiry)
        let approval = ServerFrame.pairApprovalRequest(
            PairApprovalRequest(deviceId: deviceID, claimedName: request.claimedName, deviceInfo: request.deviceInfo))
        for socket in sockets.values where socket.device?.isAdmin == true {
            socket.send(approval, live: true)
        }
    }

    private func answerKnownDevice(_ record: DeviceRecord, request: PairRequest, on connection: ServerConnection) async throws {
        switch record.status {
        case .denied, .revoked:
            fail(connection, undeliveredDenials.remove(record.deviceID) != nil ? .pairDenied : .pairRejected)
        case .approved:
            // A device that never authenticated may fetch its token again: any time while it was
            // never delivered, once within ten minutes of pairing otherwise.
            let recent = environment.now().timeIntervalSince(record.pairedAt) < Self.reissueWindow
            let undelivered = undeliveredTokens.contains(record.deviceID)
            guard record.lastSeen == nil, let userID = record.userID, undelivered || (recent && !reissuedTokens.contains(record.deviceID)) else {
                connection.sendError(.invalidMessage, "this device is already paired; authenticate with its token")
                connection.close(code: ErrorCode.invalidMessage.closeCode ?? 1008)
                return
            }
            if !undelivered { reissuedTokens.insert(record.deviceID) }
            try await deliverToken(to: record.deviceID, userID: userID, isAdmin: record.isAdmin, on: connection)
        }
    }

    private func approve(_ request: PairRequest, userID: String, isAdmin: Bool, on connection: ServerConnection) async throws {
        let record = DeviceRecord(
            deviceID: request.deviceId, userID: userID, claimedName: request.claimedName, deviceInfo: request.deviceInfo.encodedText(),
            isAdmin: isAdmin, status: .approved, pairedAt: environment.now())
        try await store.save(record)
        try await deliverToken(to: request.deviceId, userID: userID, isAdmin: isAdmin, on: connection)
    }

    /// How long after pairing a device that never authenticated may ask for its token once more.
    static let reissueWindow: TimeInterval = 600

    private func deliverToken(to deviceID: String, userID: String, isAdmin: Bool, on connection: ServerConnection) async throws {
        let token = try await tokens.issue(userID: userID, deviceID: deviceID, isAdmin: isAdmin, now: environment.now())
        if connection.isClosed {
            undeliveredTokens.insert(deviceID)
        } else {
            undeliveredTokens.remove(deviceID)
            connection.send(.pairResult(.success(token: token, userId: userID)))
        }
    }

    private func fail(_ connection: ServerConnection, _ reason: PairFailureReason) {
        connection.send(.pairResult(.failure(reason: reason)))
        connection.closeAsTheRulesSay()
    }

    private func expirePairing(_ deviceID: String) {
        guard let pending = pendingPairings.removeValue(forKey: deviceID) else { return }
        fail(pending.connection, .pairTimeout)
    }

    /// Applies an admin's `pair_decision`; the first decision wins, later ones are `invalid_message`.
    func decide(_ decision: PairDecision, by admin: AuthenticatedDevice, on connection: ServerConnection) async throws {
        guard let pending = pendingPairings.removeValue(forKey: decision.deviceId) else {
            connection.sendError(.invalidMessage, "no pairing request of device '\(decision.deviceId)' is pending (it was decided or expired)")
            return
        }
        pending.expiry.cancel()
        if decision.approve {
            guard let userID = decision.userId else {
                pendingPairings[decision.deviceId] = pending
                connection.sendError(.invalidMessage, "approving a device needs a userId")
                return
            }
            try await approve(pending.request, userID: userID, isAdmin: false, on: pending.connection)
        } else {
            try await store.save(
                DeviceRecord(
                    deviceID: decision.deviceId, userID: nil, claimedName: pending.request.claimedName,
                    deviceInfo: pending.request.deviceInfo.encodedText(), isAdmin: false, status: .denied, pairedAt: environment.now()))
            if pending.connection.isClosed { undeliveredDenials.insert(decision.deviceId) }
            fail(pending.connection, .pairDenied)
        }
    }

    // MARK: Authentication

    /// Answers an `auth`: checks the device and its token, takes over an earlier socket of the
    /// device, then replays what the device missed and re-sends pending approvals to an admin.
    func authenticate(_ auth: Auth, on connection: ServerConnection) async throws {
        if pendingPairings[auth.deviceId] != nil {
            refuse(connection, .deviceNotApproved)
            return
        }
        guard let record = try await store.device(auth.deviceId), record.status != .denied, let userID = record.userID else {
            refuse(connection, .authFailed)
            return
        }
        guard record.status != .revoked else {
            refuse(connection, .tokenRevoked)
            return
        }
        let claims: DeviceClaims
        do {
            claims = try await tokens.verify(auth.token, deviceID: auth.deviceId, now: environment.now())
        } catch {
            refuse(connection, error == .expired ? .tokenExpired : .authFailed)
            return
        }
        guard claims.userID == userID else {
            refuse(connection, .authFailed)
            return
        }
        try await store.markSeen(auth.deviceId, at: environment.now())
        let cursor: String? = if case .value(let value) = auth.lastMessageId { value } else { nil }
        let page = try await store.events(userID: userID, after: cursor, limit: Clawline.Constants.maxReplayEvents)
        let device = AuthenticatedDevice(deviceID: auth.deviceId, userID: userID, isAdmin: record.isAdmin)
        connection.authenticate(device)
        connection.beginReplay()
        let previous = sockets.updateValue(connection, forKey: auth.deviceId)
        connectedDevices[userID, default: []].insert(auth.deviceId)
        connection.send(
            .authResult(
                .success(
                    userId: userID, sessionId: connection.sessionID, replayCount: page.events.count, replayTruncated: page.truncated,
                    isAdmin: record.isAdmin)))
        if let previous, previous !== connection {
            previous.sendError(.sessionReplaced, "this device connected again on another socket")
            previous.close(code: ErrorCode.sessionReplaced.closeCode ?? 1000)
        }
        var replayed = Set<String>()
        for event in page.events {
            guard case .decoded(let frame, _) = ServerFrame.decode(text: event.frame) else {
                logger.error("a stored event does not decode; it is skipped", metadata: ["event": "\(event.eventID)"])
                continue
            }
            connection.send(frame)
            replayed.insert(event.eventID)
        }
        // Streams in progress for the account continue on this socket from their latest snapshot.
        for snapshot in streamSnapshots.values where snapshot.userID == userID {
            connection.send(.message(snapshot.message))
        }
        connection.endReplay(sent: replayed)
        if record.isAdmin {
            for pending in pendingPairings.values.sorted(by: { $0.request.deviceId < $1.request.deviceId }) {
                connection.send(
                    .pairApprovalRequest(
                        PairApprovalRequest(
                            deviceId: pending.request.deviceId, claimedName: pending.request.claimedName, deviceInfo: pending.request.deviceInfo)))
            }
        }
    }

    private func refuse(_ connection: ServerConnection, _ reason: AuthFailureReason) {
        connection.send(.authResult(.failure(reason: reason)))
        connection.closeAsTheRulesSay()
    }

    /// Forgets a socket that closed; the device's queued answers go when its last socket does.
    func disconnected(_ connection: ServerConnection) {
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
        guard record.status != .revoked else { throw HTTPFailure(.tokenRevoked, "the device's token was revoked") }
        return AuthenticatedDevice(deviceID: record.deviceID, userID: claims.userID, isAdmin: record.isAdmin)
    }

    // MARK: Shutdown

    /// Closes every socket (authenticated or pairing) with `code` and cancels the answers in progress.
    func closeAll(code: Int, reason: String) {
        for socket in sockets.values { socket.close(code: code, reason: reason) }
        for pending in pendingPairings.values {
            pending.expiry.cancel()
            pending.connection.close(code: code, reason: reason)
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
                try? FileManager.default.removeItem(atPath: (uploadsDirectory as NSString).appendingPathComponent(asset.assetID))
            }
        } catch {
            // Cancelled: the server is shutting down.
            guard !(error is CancellationError), !Task.isCancelled else { return }
            logger.error("maintenance failed", metadata: ["error": "\(error)"])
        }
    }

    // MARK: Messages

    /// Stores a client message (before its `ack`), echoes it to the account's devices and queues
    /// the assistant's answer.
    func receive(_ message: ClientMessage, from device: AuthenticatedDevice, on connection: ServerConnection) async {
        let attachments = message.attachments.wrapped ?? []
        let assetIDs = attachments.compactMap { attachment -> String? in
            if case .asset(let asset) = attachment { return asset.assetId }
            return nil
        }
        for assetID in assetIDs where (try? await store.asset(assetID))??.userID != device.userID {
            connection.sendError(.assetNotFound, "no uploaded asset of this account has the id '\(assetID)'", messageID: message.id)
            return
        }
        let echo = ServerMessage(
            id: Self.newEventID(), role: .user, content: message.content, timestamp: environment.milliseconds(), streaming: false,
            deviceId: device.deviceID, attachments: attachments.isEmpty ? nil : attachments)
        guard !answerQueueIsFull(device.deviceID) else {
            connection.sendError(.rateLimited, "too many messages are waiting for an answer; send it again later", messageID: message.id)
            return
        }
        let acceptance: MessageAcceptance
        do {
            acceptance = try await store.accept(
                clientMessageID: message.id, deviceID: device.deviceID, fingerprint: MessageFingerprint.of(message),
                echo: StoredEvent(eventID: echo.id, userID: device.userID, frame: ServerFrame.message(echo).encodedText()))
        } catch {
            logger.error("a message could not be stored", metadata: ["error": "\(error)"])
            connection.sendError(.serverError, "the message could not be stored; send it again", messageID: message.id)
            return
        }
        switch acceptance {
        case .retry:
            connection.send(.ack(Ack(id: message.id)))
        case .conflict(let reason):
            connection.sendError(.invalidMessage, reason, messageID: message.id)
        case .accepted:
            try? await store.markReferenced(assetIDs)
            connection.send(.ack(Ack(id: message.id)))
            broadcast(.message(echo), to: device.userID)
            let request = AssistantRequest(
                userID: device.userID, deviceID: device.deviceID, messageID: echo.id, content: message.content, attachments: attachments)
            enqueueAnswer(to: request, clientMessageID: message.id)
        }
    }

    /// Sends a snapshot of a stream to the account's devices and remembers it for sockets that
    /// connect while the stream goes on.
    func streamed(_ snapshot: ServerMessage, answering deviceID: String, of userID: String) {
        streamSnapshots[deviceID] = (userID, snapshot)
        broadcast(.message(snapshot), to: userID)
    }

    /// Forgets the stream answering a device's message.
    func streamEnded(answering deviceID: String) {
        streamSnapshots[deviceID] = nil
    }

    /// Whether a device's assistant queue has no room for another message.
    func answerQueueIsFull(_ deviceID: String) -> Bool {
        answerQueues[deviceID]?.isFull ?? false
    }

    /// Sends a frame to every connected device of an account.
    func broadcast(_ frame: ServerFrame, to userID: String) {
        for deviceID in connectedDevices[userID] ?? [] {
            sockets[deviceID]?.send(frame, live: true)
        }
    }

    /// Starts or ends the assistant's typing indicator for an account, within the spec's
    /// `assistant_typing` limit: an indicator starts only when the account's window has room for
    /// it and the end that follows it, and ends only if it started. Returns whether it was sent.
    @discardableResult
    func sendTyping(_ active: Bool, to userID: String, started: Bool = true) -> Bool {
        let rule = Clawline.RateLimits.assistantTyping
        let now = environment.elapsed()
        var sent = typingSent[userID, default: []]
        if let window = rule.window { sent.removeAll { $0 <= now - window } }
        if active ? sent.count + 2 > rule.limit : !started {
            typingSent[userID] = sent
            return false
        }
        sent.append(now)
        typingSent[userID] = sent
        broadcast(.typing(ServerTyping(active: active)), to: userID)
        return true
    }

    private func forgetSocket(of deviceID: String, in userID: String?) {
        sockets[deviceID] = nil
        guard let userID else { return }
        connectedDevices[userID]?.remove(deviceID)
        if connectedDevices[userID]?.isEmpty == true { connectedDevices[userID] = nil }
    }

    /// The socket of a device, if it is connected.
    func socket(of deviceID: String) -> ServerConnection? { sockets[deviceID] }

    private func enqueueAnswer(to request: AssistantRequest, clientMessageID: String) {
        let queue = answerQueues[request.deviceID] ?? AnswerQueue(hub: self)
        answerQueues[request.deviceID] = queue
        if !queue.enqueue(AnswerJob(request: request, clientMessageID: clientMessageID)) {
            socket(of: request.deviceID)?.sendError(.rateLimited, "too many messages are waiting for an answer", messageID: clientMessageID)
        }
    }

    static func newEventID() -> String { "s_" + UUID().uuidString.lowercased() }
}
