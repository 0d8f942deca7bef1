import ClawlineProtocol
import Foundation
import WireRuntime

extension ChatService {
    /// Handles one text frame from the server; returns the failure that ends the session, if it does.
    func receive(_ text: String) async -> ClawlineClientError? {
        observer?(ObservedFrame(connection: socketName, direction: .server, text: text, timestamp: environment.now()))
        let result = ServerFrame.decode(text: text)
        guard case .decoded(let frame, _) = result else {
            noticeSink.yield(.protocolViolation("the server sent a frame that breaks the protocol: \(result.rejectionReason ?? text)"))
            return nil
        }
        if let violations = machine?.observe(json: Array(text.utf8), from: .server) {
            // A warning is a rule one connection cannot confirm (an error naming a message sent before a takeover).
            for violation in violations where violation.severity == .error {
                noticeSink.yield(.protocolViolation("server \(frame.tag): \(violation.message)"))
            }
        }
        frameSink.yield(frame)
        switch frame {
        case .authResult(.success(let success)):
            await authenticated(success)
        case .authResult(.failure(let failure)):
            return failure.reason == .deviceNotApproved ? .deviceNotApproved : .authRejected(failure.reason)
        case .message(let event):
            await apply(event)
            await countReplayed()
        case .ack(let ack):
            await acknowledged(ack.id.rawValue)
        case .typing(let typing):
            typingSink.yield(TypingEvent(role: typing.role == .user ? .user : .assistant, active: typing.active))
        case .error(let error):
            noticeSink.yield(.serverError(error))
            return await handle(error)
        case .pairResult, .pairApprovalRequest, .unknown:
            break
        }
        return nil
    }

    private func authenticated(_ success: AuthSuccess) async {
        isAuthenticated = true
        backoff.reset()
        set(.connected)
        noticeSink.yield(.authenticated(success))
        if success.historyReset == true {
            // The server's history restarted: keep only what this device has not delivered yet.
            await update { conversation in
                conversation.messages.removeAll { $0.id.hasPrefix("s_") }
                conversation.cursor = nil
            }
            appliedEvents = []
        }
        settleConnect(.success(()))
        replayRemaining = success.replayCount
        if success.replayCount == 0 { await replayFinished() }
        pump()
    }

    /// Applies a server message event: a streamed snapshot, a final answer, or a user message
    /// echoed by the server (this device's own replaces the optimistic copy).
    private func apply(_ event: ServerMessage) async {
        if event.streaming {
            guard !appliedEvents.contains(event.id.rawValue) else { return }
            liveStreams.insert(event.id.rawValue)
            let message = ChatMessage(event)
            // Snapshots stay in memory: only the final is stored and moves the cursor.
            if var conversation = conversationState {
                upsert(message, into: &conversation)
                conversationState = conversation
            }
            messageSink.yield(message)
            return
        }
        guard !appliedEvents.contains(event.id.rawValue) else { return }
        appliedEvents.insert(event.id.rawValue)
        liveStreams.remove(event.id.rawValue)
        var message = ChatMessage(event)
        let ownDevice = deviceId
        await update { conversation in
            if message.role == .user, event.deviceId == ownDevice,
                let index = conversation.messages.firstIndex(where: { $0.id.hasPrefix("c_") && $0.content == event.content })
            {
                message.clientId = conversation.messages[index].clientId
                // The echo takes the place the server gives it: a message sent while the replay was
                // still arriving would otherwise stay before the history it follows.
                conversation.messages.remove(at: index)
                conversation.messages.append(message)
            } else {
                upsert(message, into: &conversation)
            }
            if message.role == .assistant { clearMissingAnswer(before: message.id, in: &conversation) }
            conversation.cursor = event.id.rawValue
        }
        messageSink.yield(message)
    }

    /// Counts a replayed event; the last one ends the replay.
    private func countReplayed() async {
        guard let remaining = replayRemaining else { return }
        replayRemaining = remaining - 1
        if remaining <= 1 { await replayFinished() }
    }

    /// After the replay: a streamed answer from before the reconnect that got no final is lost
    /// (the server does not replay partials), and this device's last message without an answer is
    /// shown as failed, with a retry.
    func replayFinished() async {
        guard replayRemaining.map({ $0 <= 0 }) ?? true, isAuthenticated else { return }
        replayRemaining = nil
        let live = liveStreams
        var failed: [ChatMessage] = []
        let ownDevice = deviceId
        await update { conversation in
            conversation.messages.removeAll { $0.status == .streaming && !live.contains($0.id) }
            guard live.isEmpty, let last = conversation.messages.lastIndex(where: { $0.role == .user }),
                conversation.messages[last].deviceId == ownDevice, conversation.messages[last].status == .delivered,
                !conversation.messages[(last + 1)...].contains(where: { $0.role == .assistant })
            else { return }
            conversation.messages[last].status = .failed
            conversation.messages[last].failure = "no answer came; send it again"
            failed.append(conversation.messages[last])
        }
        for message in failed { messageSink.yield(message) }
        noticeSink.yield(.replayFinished)
    }

    private func acknowledged(_ id: String) async {
        guard conversationState?.pending.contains(where: { $0.id == id }) == true else { return }
        if inFlight == id { inFlight = nil }
        var changed: ChatMessage?
        await update { conversation in
            conversation.pending.removeAll { $0.id == id }
            if let index = conversation.messages.firstIndex(where: { $0.clientId == id && $0.status == .sending }) {
                conversation.messages[index].status = .delivered
                changed = conversation.messages[index]
            }
        }
        if let changed { messageSink.yield(changed) }
        pump()
    }

    /// Acts on an `error` frame; returns the failure that ends the session, if it does.
    private func handle(_ error: ErrorMessage) async -> ClawlineClientError? {
        switch error.code {
        case .sessionReplaced:
            return .sessionReplaced
        case .tokenRevoked:
            return .authRejected(.tokenRevoked)
        case .authFailed:
            return .authRejected(.authFailed)
        default:
            break
        }
        let pendingID = error.messageId ?? (error.code == .rateLimited ? inFlight : nil)
        guard let id = pendingID else { return nil }
        if conversationState?.pending.contains(where: { $0.id == id }) == true {
            switch error.code {
            case .rateLimited, .serverError, .uploadFailedRetryable:
                // Not accepted: send it again with the same id, a little later.
                if inFlight == id { inFlight = nil }
                let delay = Duration.milliseconds(200) + .milliseconds(300) * environment.random()
                schedule(after: delay) { service, _ in service.pump() }
            default:
                await fail(pending: id, because: error.message)
            }
        } else {
            await answerFailed(for: id, because: error.message)
        }
        return nil
    }

    /// A message the server refused for good: out of the queue, shown as failed.
    private func fail(pending id: String, because reason: String) async {
        if inFlight == id { inFlight = nil }
        var changed: ChatMessage?
        await update { conversation in
            conversation.pending.removeAll { $0.id == id }
            if let index = conversation.messages.firstIndex(where: { $0.clientId == id }) {
                conversation.messages[index].status = .failed
                conversation.messages[index].failure = reason
                changed = conversation.messages[index]
            }
        }
        if let changed { messageSink.yield(changed) }
        pump()
    }

    /// The answer to an accepted message failed: its partial answers go, the message can be retried.
    private func answerFailed(for clientID: String, because reason: String) async {
        let live = liveStreams
        liveStreams = []
        var changed: [ChatMessage] = []
        await update { conversation in
            conversation.messages.removeAll { $0.status == .streaming && live.contains($0.id) }
            if let index = conversation.messages.lastIndex(where: { $0.clientId == clientID }) {
                conversation.messages[index].status = .failed
                conversation.messages[index].failure = reason
                changed.append(conversation.messages[index])
            }
        }
        for message in changed { messageSink.yield(message) }
    }
}

/// Inserts `message` or replaces the message with its id.
func upsert(_ message: ChatMessage, into conversation: inout Conversation) {
    if let index = conversation.messages.lastIndex(where: { $0.id == message.id }) {
        conversation.messages[index] = message
    } else {
        conversation.messages.append(message)
    }
}

/// An answer arrived: the user message before it is no longer missing its answer.
func clearMissingAnswer(before answerID: String, in conversation: inout Conversation) {
    guard let answer = conversation.messages.lastIndex(where: { $0.id == answerID }),
        let question = conversation.messages[..<answer].lastIndex(where: { $0.role == .user }),
        conversation.messages[question].status == .failed, conversation.messages[question].id.hasPrefix("s_")
    else { return }
    conversation.messages[question].status = .delivered
    conversation.messages[question].failure = nil
}
