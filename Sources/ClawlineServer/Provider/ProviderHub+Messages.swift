import ClawlineProtocol
import Foundation
import Logging
import WireRuntime

/// Messages: storing, echoing and queueing the assistant's answers.
extension ProviderHub {
    // MARK: Messages

    /// Stores a client message (before its `ack`), echoes it to the account's devices and queues
    /// the assistant's answer.
    func receive(_ message: ClientMessage, from device: AuthenticatedDevice, on connection: ServerConnection) async {
        let attachments = message.attachments.wrapped ?? []
        let assetIDs = attachments.compactMap { attachment -> String? in
            if case .asset(let asset) = attachment { return asset.assetId.rawValue }
            return nil
        }
        for assetID in assetIDs where (try? await store.asset(assetID))??.userID != device.userID {
            connection.sendError(.assetNotFound, "no uploaded asset of this account has the id '\(assetID)'", messageID: message.id.rawValue)
            return
        }
        let echo = ServerMessage(
            id: ServerEventId(Self.newEventID()), role: .user, content: message.content, timestamp: environment.milliseconds(), streaming: false,
            deviceId: DeviceId(device.deviceID), attachments: attachments.isEmpty ? nil : attachments)
        guard !answerQueueIsFull(device.deviceID) else {
            connection.sendError(.rateLimited, "too many messages are waiting for an answer; send it again later", messageID: message.id.rawValue)
            return
        }
        let acceptance: MessageAcceptance
        do {
            acceptance = try await store.accept(
                clientMessageID: message.id.rawValue, deviceID: device.deviceID, fingerprint: MessageFingerprint.of(message),
                echo: StoredEvent(eventID: echo.id.rawValue, userID: device.userID, frame: ServerFrame.message(echo).encodedText()))
        } catch {
            logger.error("a message could not be stored", metadata: ["error": "\(error)"])
            connection.sendError(.serverError, "the message could not be stored; send it again", messageID: message.id.rawValue)
            return
        }
        switch acceptance {
        case .retry:
            connection.send(.ack(Ack(id: message.id)))
        case .conflict(let reason):
            connection.sendError(.invalidMessage, reason, messageID: message.id.rawValue)
        case .accepted:
            try? await store.markReferenced(assetIDs)
            connection.send(.ack(Ack(id: message.id)))
            broadcast(.message(echo), to: device.userID)
            let request = AssistantRequest(
                userID: device.userID, deviceID: device.deviceID, messageID: echo.id.rawValue, content: message.content, attachments: attachments)
            enqueueAnswer(to: request, clientMessageID: message.id.rawValue)
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

    func enqueueAnswer(to request: AssistantRequest, clientMessageID: String) {
        let queue = answerQueues[request.deviceID] ?? AnswerQueue(hub: self)
        answerQueues[request.deviceID] = queue
        if !queue.enqueue(AnswerJob(request: request, clientMessageID: clientMessageID)) {
            socket(of: request.deviceID)?.sendError(.rateLimited, "too many messages are waiting for an answer", messageID: clientMessageID)
        }
    }
}
