import ClawlineProtocol
import NIOConcurrencyHelpers

/// A user message waiting for the assistant's answer.
struct AnswerJob: Sendable {
    var request: AssistantRequest
    var clientMessageID: String
}

/// One device's assistant answers, one stream at a time, first in first out: the stream in
/// progress plus at most `maxQueuedMessages` waiting.
final class AnswerQueue: Sendable {
    private let jobs: AsyncStream<AnswerJob>.Continuation
    private let outstanding: NIOLockedValueBox<Int>
    private let worker: Task<Void, Never>

    init(hub: ProviderHub) {
        let (stream, jobs) = AsyncStream<AnswerJob>.makeStream()
        let outstanding = NIOLockedValueBox(0)
        self.jobs = jobs
        self.outstanding = outstanding
        worker = Task {
            for await job in stream {
                await Self.answer(job, hub: hub)
                outstanding.withLockedValue { $0 -= 1 }
            }
        }
    }

    /// Queues a job; `false` when the queue is full.
    func enqueue(_ job: AnswerJob) -> Bool {
        outstanding.withLockedValue { count in
            guard count <= Clawline.Constants.maxQueuedMessages else { return false }
            count += 1
            jobs.yield(job)
            return true
        }
    }

    /// Drops the waiting jobs and cancels the stream in progress.
    func cancel() {
        jobs.finish()
        worker.cancel()
    }

    /// Streams the assistant's answer to the account's devices and stores the final message;
    /// a failure is reported to the sending device as `server_error` naming its message.
    private static func answer(_ job: AnswerJob, hub: ProviderHub) async {
        let request = job.request
        let answerID = ProviderHub.newEventID()
        let timestamp = hub.environment.milliseconds()
        @Sendable func message(_ content: String, streaming: Bool) -> ServerFrame {
            .message(ServerMessage(id: answerID, role: .assistant, content: content, timestamp: timestamp, streaming: streaming))
        }
        let typing = await hub.sendTyping(true, to: request.userID)
        do {
            let final = try await hub.assistant.answer(request) { snapshot in
                await hub.broadcast(message(snapshot, streaming: true), to: request.userID)
            }
            try Task.checkCancellation()
            let frame = message(final, streaming: false)
            try await hub.store.append(StoredEvent(eventID: answerID, userID: request.userID, frame: frame.encodedText()))
            await hub.broadcast(frame, to: request.userID)
        } catch {
            try? await hub.store.markFailed(clientMessageID: job.clientMessageID, deviceID: request.deviceID)
            if !(error is CancellationError) {
                hub.logger.warning("the assistant failed", metadata: ["error": "\(error)"])
                await hub.socket(of: request.deviceID)?.sendError(
                    .serverError, "the answer failed; send the message again under a new id", messageID: job.clientMessageID)
            }
        }
        await hub.sendTyping(false, to: request.userID, started: typing)
    }
}
