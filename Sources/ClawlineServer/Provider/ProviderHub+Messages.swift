import ClawlineProtocol
import Foundation
import Logging
import WireRuntime

/// Messages: storing, echoing and queueing the assistant's answers.
extension ProviderHub {
    // MARK: Messages

    /// Stores a client message (before its `ack`), echoes it to the account's devices and queues
    /// the assistant's answer. Returns whether the message was acknowledged.
    @discardableResult
    func receive(_ message: ClientMessage, from device: AuthenticatedDevice, on connection: ServerConnection) async -> Bool {
        let attachments = message.attachments.wrapped ?? []
        let assetIDs = attachments.compactMap { attachment -> String? in
            if case .asset(let asset) = attachment { return asset.assetId.rawValue }
            return nil
        }
        for assetID in assetIDs {
            let asset: AssetRecord?
            do {
                asset = try await store.asset(assetID)
            } catch {
                logger.error("an attachment could not be looked up", metadata: ["error": "\(error)"])
                connection.sendError(.serverError, "the attachment could not be looked up; send the message again", messageID: message.id.rawValue)
                return false
            }
            guard asset?.userID == device.userID else {
                connection.sendError(.assetNotFound, "no uploaded asset of this account has the id '\(assetID)'", messageID: message.id.rawValue)
                return false
            }
        }
        let echo = ServerMessage(
            id: ServerEventId(Self.newEventID()), role: .user, content: message.content, timestamp: environment.milliseconds(), streaming: false,
            deviceId: DeviceId(device.deviceID), attachments: attachments.isEmpty ? nil : attachments)
        guard !answers.isFull(device.deviceID) else {
            connection.sendError(.rateLimited, "too many messages are waiting for an answer; send it again later", messageID: message.id.rawValue)
            return false
        }
        guard lateMessages[device.deviceID, default: 0] < Self.maxLateMessagesPerDevice else {
            connection.sendError(
                .serverError, "the store has not taken this device's earlier messages yet; send it again later", messageID: message.id.rawValue)
            return false
        }
        let store = store
        let metrics = metrics
        let fingerprint = MessageFingerprint.of(message)
        // Encoded once: the store keeps its text and the account's sockets get its bytes.
        let echoFrame = OutboundFrame(.message(echo))
        let stored = StoredEvent(eventID: echo.id.rawValue, userID: device.userID, frame: echoFrame.text)
        let outcome = await storeCalls.run {
            // Marked before the message is stored: if marking fails nothing is acknowledged, and
            // if storing fails an upload is kept that no message names (never the other way,
            // an acknowledged message naming an upload the retention sweep deletes).
            try await store.markReferenced(assetIDs)
            let started = ContinuousClock.now
            defer { metrics.committed(after: started.duration(to: .now)) }
            return try await store.accept(
                clientMessageID: message.id.rawValue, deviceID: device.deviceID, fingerprint: fingerprint, echo: stored)
        } late: { [weak self] result in
            await self?.storedLate(result, echo: echo, of: message, from: device)
        }
        let acceptance: MessageAcceptance
        switch outcome {
        case .late:
            countLateMessage(of: device.deviceID, by: 1)
            logger.warning("the store did not take a message in time", metadata: ["limit": "\(limits.storeCallLimit)"])
            connection.sendError(
                .serverError, "the store did not take the message within \(limits.storeCallLimit); send it again", messageID: message.id.rawValue)
            return false
        case .finished(.failure(let error)):
            logger.error("a message could not be stored", metadata: ["error": "\(error)"])
            connection.sendError(.serverError, "the message could not be stored; send it again", messageID: message.id.rawValue)
            return false
        case .finished(.success(let accepted)):
            acceptance = accepted
        }
        switch faults.acceptance(acceptance) {
        case .retry:
            connection.send(.ack(Ack(id: message.id)))
            return true
        case .conflict(let reason):
            connection.sendError(.invalidMessage, reason, messageID: message.id.rawValue)
            return false
        case .accepted(let number):
            connection.send(.ack(Ack(id: message.id)))
            if faults.has(.echoOnlyToSender) {
                connection.send(echoFrame)
            } else {
                broadcast(echoFrame, to: device.userID, number: number)
            }
            answer(message, echoedAs: echo, from: device)
            return true
        }
    }

    /// The most messages of one device whose store calls outlived ``ProviderLimits/storeCallLimit``
    /// and have not ended yet. While a device has this many, its messages are refused at once
    /// (`server_error`, sent again later): a store that never answers holds this many calls per
    /// device, not one per retry.
    static let maxLateMessagesPerDevice = 4

    /// A message's store call ended after the socket had answered `server_error`. If it committed,
    /// the message is echoed and answered as if the socket had waited; the sender's retry under
    /// the same id gets its `ack`.
    private func storedLate(
        _ result: Result<MessageAcceptance, any Error>, echo: ServerMessage, of message: ClientMessage, from device: AuthenticatedDevice
    ) {
        countLateMessage(of: device.deviceID, by: -1)
        guard case .success(let acceptance) = result, case .accepted(let number) = faults.acceptance(acceptance) else { return }
        logger.info("a message the store took late is echoed and answered", metadata: ["messageId": "\(message.id.rawValue)"])
        broadcast(.message(echo), to: device.userID, number: number)
        answer(message, echoedAs: echo, from: device)
    }

    /// Counts a device's late store calls up or down. The two steps may come in either order (the
    /// call can end before the socket's side counts it), so the count may be -1 for a moment; it
    /// is forgotten at 0.
    private func countLateMessage(of deviceID: String, by step: Int) {
        let count = lateMessages[deviceID, default: 0] + step
        lateMessages[deviceID] = count == 0 ? nil : count
    }

    /// Queues the assistant's answer to a stored message.
    private func answer(_ message: ClientMessage, echoedAs echo: ServerMessage, from device: AuthenticatedDevice) {
        let request = AssistantRequest(
            userID: device.userID, deviceID: device.deviceID, messageID: echo.id.rawValue, content: message.content,
            attachments: message.attachments.wrapped ?? [])
        enqueueAnswer(to: request, clientMessageID: message.id.rawValue)
    }

    /// Sends a snapshot of a stream (`frame`, built by the answer's task) to the account's devices
    /// and remembers it for sockets that connect while the stream goes on.
    func streamed(_ snapshot: ServerMessage, as frame: OutboundFrame, answering deviceID: String, of userID: String) {
        answers.streamed(snapshot, answering: deviceID, of: userID)
        broadcast(frame, to: userID)
    }

    /// Forgets the stream answering a device's message.
    func streamEnded(answering deviceID: String) {
        answers.streamEnded(answering: deviceID)
    }

    /// An answer was stored as its account's event `number`: its stream is forgotten, its final
    /// message (`final`, built by the answer's task) goes to the account's devices, and the typing
    /// indicator ends if it started. One step on the hub, not three.
    func answerStored(_ final: OutboundFrame, number: Int?, answering deviceID: String, of userID: String, typingStarted: Bool) {
        streamEnded(answering: deviceID)
        broadcast(final, to: userID, number: number)
        sendTyping(false, to: userID, started: typingStarted)
    }

    /// Starts or ends the assistant's typing indicator for an account, within the spec's
    /// `assistant_typing` limit: an indicator starts only when the account's window has room for
    /// it and the end that follows it, and ends only if it started. Returns whether it was sent.
    @discardableResult
    func sendTyping(_ active: Bool, to userID: String, started: Bool = true) -> Bool {
        guard answers.mayType(active, to: userID, started: started, now: environment.elapsed()) else { return false }
        broadcast(active ? Self.typingStarts : Self.typingEnds, to: userID)
        return true
    }

    /// The assistant's typing frames, encoded once for the server's life.
    private static let typingStarts = OutboundFrame(.typing(ServerTyping(active: true)))
    private static let typingEnds = OutboundFrame(.typing(ServerTyping(active: false)))

    func enqueueAnswer(to request: AssistantRequest, clientMessageID: String) {
        let queue = answers.queue(of: request.deviceID) { AnswerQueue(hub: self) }
        if !queue.enqueue(AnswerJob(request: request, clientMessageID: clientMessageID)) {
            socket(of: request.deviceID)?.sendError(.rateLimited, "too many messages are waiting for an answer", messageID: clientMessageID)
        }
    }
}
