import ClawlineProtocol
import Foundation
import WireRuntime

extension ChatService {
    @discardableResult
    public func send(content: String, attachments: [OutgoingAttachment] = []) async throws -> ChatMessage {
        try await loaded()
        let resolved = try await resolve(attachments)
        let pending = PendingMessage(id: PendingMessage.newID(), content: content, attachments: resolved)
        try Self.checkLocally(pending)
        let message = ChatMessage(
            id: pending.id, clientId: pending.id, role: .user, content: content, timestamp: environment.now(), status: .sending,
            deviceId: deviceId, attachments: resolved)
        queue.enqueue(pending)
        timeline?.apply(.queued(message))
        do {
            // Stored before it is sent, so a crash or relaunch retries it.
            try await persist("the message \(pending.id) queued to send")
        } catch {
            // Not queued: the caller hears that nothing will be sent.
            queue.withdraw(pending.id)
            timeline?.withdrawQueued(clientID: pending.id)
            throw error
        }
        messageSink.yield(message)
        pump()
        return message
    }

    @discardableResult
    public func retry(messageId: String) async throws -> ChatMessage {
        let timeline = try await loaded()
        guard let failed = timeline.messages.last(where: { $0.id == messageId }), failed.status == .failed else {
            throw ClawlineClientError.invalidMessage("no failed message has the id \(messageId)")
        }
        await apply(.retried(messageId: messageId), storing: "the retry of \(messageId)")
        return try await send(content: failed.content, attachments: failed.attachments.map(OutgoingAttachment.init))
    }

    public func sendTyping(active: Bool) async {
        guard isAuthenticated else { return }
        let now = environment.elapsed()
        guard typingWindow.wait(at: now) == .zero else { return }
        typingWindow.record(at: now)
        send(.typing(ClientTyping(active: active)))
    }

    public func send(decision: PairDecision) async throws {
        guard isAuthenticated else { throw ClawlineClientError.notConnected }
        send(.pairDecision(decision))
    }

    /// Sends the head of the queue when nothing is in flight, within the spec's message rate.
    func pump() {
        guard isAuthenticated else { return }
        switch queue.next(at: environment.elapsed()) {
        case .idle:
            return
        case .wait(let delay):
            schedule(after: delay) { service, _ in service.pump() }
        case .send(let message):
            send(message.frame)
            schedule(after: Clawline.Constants.ackTimeout) { service, _ in service.ackTimedOut(message.id) }
        }
    }

    private func ackTimedOut(_ id: String) {
        guard queue.inFlight == id else { return }
        queue.sendAgain(id)
        pump()
    }

    /// Uploads files and checks inline images; returns the attachments as the frame carries them.
    private func resolve(_ attachments: [OutgoingAttachment]) async throws -> [Attachment] {
        var resolved: [Attachment] = []
        for attachment in attachments {
            switch attachment {
            case .inlineImage(let data, let mimeType):
                resolved.append(.image(ImageAttachment(mimeType: mimeType, data: data.base64EncodedString())))
            case .asset(let id):
                resolved.append(.asset(AssetAttachment(assetId: id)))
            case .file(let data, let mimeType, let fileName):
                guard let token else { throw ClawlineClientError.notConnected }
                let asset = try await http.upload(data, mimeType: mimeType, fileName: fileName, token: token)
                resolved.append(.asset(AssetAttachment(assetId: asset.assetId)))
            }
        }
        return resolved
    }

    /// The spec's checks of a message frame (id, content and attachment limits), run before
    /// anything is queued, so the server never has to answer `payload_too_large`.
    static func checkLocally(_ pending: PendingMessage) throws {
        let issues = pending.frame.validate()
        guard issues.isEmpty else {
            throw ClawlineClientError.invalidMessage(issues.map(\.description).joined(separator: "; "))
        }
    }
}

extension OutgoingAttachment {
    /// The attachment as it was sent (for a retry).
    init(_ attachment: Attachment) {
        switch attachment {
        case .image(let image): self = .inlineImage(Data(base64Encoded: image.data) ?? Data(), mimeType: image.mimeType)
        case .asset(let asset): self = .asset(asset.assetId)
        }
    }
}
