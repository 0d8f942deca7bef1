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
            switch failure.reason {
            case .deviceNotApproved: return .deviceNotApproved
            case Self.rateLimitedAuthentication:
                // Not a verdict on the token: the close follows, and the next attempt waits.
                authRateLimited = true
                return nil
            default: return .authRejected(failure.reason)
            }
        case .message(let event):
            // Snapshots stay in memory: only a final is stored, and moves the cursor.
            await apply(.received(event), storing: event.streaming ? nil : "the event \(event.id.rawValue) and the cursor")
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
            await apply(.historyReset, storing: "the history reset by the server")
        }
        settleConnect(.success(()))
        replayRemaining = success.replayCount
        if success.replayCount == 0 { await replayFinished() }
        pump()
    }

    /// Counts a replayed event; the last one ends the replay.
    private func countReplayed() async {
        guard let remaining = replayRemaining else { return }
        replayRemaining = remaining - 1
        if remaining <= 1 { await replayFinished() }
    }

    /// After the replay: the timeline's missing-final rule, then the notice.
    func replayFinished() async {
        guard replayRemaining.map({ $0 <= 0 }) ?? true, isAuthenticated else { return }
        replayRemaining = nil
        await apply(.replayFinished, storing: "the end of the replay")
        noticeSink.yield(.replayFinished)
    }

    private func acknowledged(_ id: String) async {
        guard queue.acknowledged(id) else { return }
        await apply(.acknowledged(clientId: id), storing: "the acknowledgement of \(id)")
        pump()
    }

    /// The `auth_result` reason some providers (the protocol author's among them) give an `auth`
    /// over the rate limit, where the contract's answer is `error` `rate_limited`. Both are
    /// handled alike: the token is kept and the next attempt waits out the rate window.
    static let rateLimitedAuthentication = AuthFailureReason(rawValue: ErrorCode.rateLimited.rawValue)

    /// Acts on an `error` frame; returns the failure that ends the session, if it does.
    private func handle(_ error: ErrorMessage) async -> ClawlineClientError? {
        if !isAuthenticated, error.code == .rateLimited {
            authRateLimited = true
            return nil
        }
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
        guard let id = error.messageId ?? (error.code == .rateLimited ? queue.inFlight : nil) else { return nil }
        guard queue.contains(id) else {
            // An accepted message whose answer failed: its partial answers go, it can be retried.
            await apply(.answerFailed(clientId: id, reason: error.message), storing: "the failed answer to \(id)")
            return nil
        }
        switch error.code {
        case .rateLimited, .serverError, .uploadFailedRetryable:
            // Not accepted: send it again with the same id, a little later.
            queue.sendAgain(id)
            let delay = Duration.milliseconds(200) + .milliseconds(300) * environment.random()
            schedule(after: delay) { service, _ in service.pump() }
        default:
            // Refused for good: out of the queue, shown as failed, and the next one goes on.
            queue.refused(id)
            await apply(.refused(clientId: id, reason: error.message), storing: "the refusal of \(id)")
            pump()
        }
        return nil
    }
}
