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
    /// The client message ids of the answer in progress and the waiting ones, oldest first.
    private let outstanding: NIOLockedValueBox<[String]>
    private let worker: Task<Void, Never>

    init(hub: ProviderHub) {
        let (stream, jobs) = AsyncStream<AnswerJob>.makeStream()
        let outstanding = NIOLockedValueBox<[String]>([])
        self.jobs = jobs
        self.outstanding = outstanding
        worker = Task {
            for await job in stream {
                await Self.answer(job, hub: hub)
                outstanding.withLockedValue { _ = $0.removeFirst() }
            }
        }
    }

    /// Whether the stream in progress and `count - 1` waiting jobs fill the queue.
    private static func isFull(_ count: Int) -> Bool { count > Clawline.Constants.maxQueuedMessages }

    /// Whether the stream in progress and the waiting jobs fill the queue.
    var isFull: Bool { outstanding.withLockedValue { Self.isFull($0.count) } }

    /// How many answers are in progress or waiting (no copy of their ids).
    var count: Int { outstanding.withLockedValue { $0.count } }

    /// The client message ids of the answer in progress and the waiting ones, oldest first.
    var clientMessageIDs: [String] { outstanding.withLockedValue { $0 } }

    /// Queues a job; `false` when the queue is full.
    func enqueue(_ job: AnswerJob) -> Bool {
        outstanding.withLockedValue { ids in
            guard !Self.isFull(ids.count) else { return false }
            ids.append(job.clientMessageID)
            jobs.yield(job)
            return true
        }
    }

    /// Drops the waiting jobs and cancels the stream in progress.
    func cancel() {
        jobs.finish()
        worker.cancel()
    }

    /// Waits until the worker has ended (a cancelled answer is marked failed in the store), or
    /// until `deadline`.
    func finished(before deadline: ContinuousClock.Instant) async {
        let worker = worker
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await worker.value }
            group.addTask { try? await Task.sleep(until: deadline) }
            await group.next()
            group.cancelAll()
        }
    }

    /// A stream that had no update for `streamInactivityTimeout`.
    struct StreamStalled: Error {}

    /// What the task answering a message waits for, besides its assistant's result.
    private enum AnswerEvent: Sendable {
        /// A snapshot waits for the pacer, which has not run yet.
        case pacingNeeded
        /// The assistant returned or threw.
        case finished
        /// The hub's ``AnswerWatch`` heard nothing from the assistant for the timeout.
        case stalled
    }

    /// Streams the assistant's answer to the account's devices and stores the final message;
    /// a failure (the assistant threw, or sent nothing for `streamInactivityTimeout`) is reported
    /// to the sending device as `server_error` naming its message.
    ///
    /// The assistant runs in a child task. This task waits for its events: the hub's one
    /// ``AnswerWatch`` (not a timer of the answer's own) says when it stalled, and the pacer's task
    /// starts only when a snapshot past the burst waits for it.
    private static func answer(_ job: AnswerJob, hub: ProviderHub) async {
        let request = job.request
        let answerID = ProviderHub.newEventID()
        let environment = hub.environment
        let timestamp = environment.milliseconds()
        @Sendable func message(_ content: String, streaming: Bool) -> ServerMessage {
            ServerMessage(id: ServerEventId(answerID), role: .assistant, content: content, timestamp: timestamp, streaming: streaming)
        }
        @Sendable func stream(_ snapshot: String) async {
            let snapshot = message(snapshot, streaming: true)
            await hub.streamed(snapshot, as: OutboundFrame(.message(snapshot)), answering: request.deviceID, of: request.userID)
        }
        let typing = await hub.sendTyping(true, to: request.userID)
        let pacer = SnapshotPacer(burst: hub.limits.snapshotBurst, interval: hub.limits.snapshotInterval)
        let (events, signal) = AsyncStream<AnswerEvent>.makeStream()
        let activity = AnswerActivity(startedAt: environment.elapsed()) { signal.yield(.stalled) }
        let watched = hub.answerWatch.watch(activity)
        do {
            let final = try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask {
                    defer { signal.yield(.finished) }
                    return try await hub.assistant.answer(request) { snapshot in
                        let now = environment.elapsed()
                        activity.touch(at: now)
                        switch pacer.offer(snapshot, at: now) {
                        case .send: await stream(snapshot)
                        case .held(let first): if first { signal.yield(.pacingNeeded) }
                        }
                    }
                }
                defer {
                    // The assistant finished or stalled: the watch has nothing more to watch here.
                    hub.answerWatch.forget(watched)
                    group.cancelAll()
                }
                for await event in events {
                    switch event {
                    case .pacingNeeded:
                        group.addTask {
                            try await pacer.run(clock: environment.clock, now: environment.elapsed, send: stream)
                            throw CancellationError()
                        }
                    case .stalled:
                        throw StreamStalled()
                    case .finished:
                        // The assistant's child is the one that ends; the pacer's runs until cancelled.
                        guard let final = try await group.next() else { throw CancellationError() }
                        return final
                    }
                }
                // The events end only when this task is cancelled.
                throw CancellationError()
            }
            try Task.checkCancellation()
            // Encoded once: the store keeps its text and the account's sockets get its bytes.
            let frame = OutboundFrame(.message(message(final, streaming: false)))
            let number = try await hub.store.append(StoredEvent(eventID: answerID, userID: request.userID, frame: frame.text))
            await hub.answerStored(frame, number: number, answering: request.deviceID, of: request.userID, typingStarted: typing)
        } catch {
            await hub.streamEnded(answering: request.deviceID)
            try? await hub.store.markFailed(clientMessageID: job.clientMessageID, deviceID: request.deviceID)
            if !(error is CancellationError) {
                hub.logger.warning("the assistant's answer failed", metadata: ["error": "\(error)"])
                let reason = error is StreamStalled ? "the answer stalled" : "the answer failed"
                await hub.socket(of: request.deviceID)?.sendError(
                    .serverError, "\(reason); send the message again under a new id", messageID: job.clientMessageID)
            }
            await hub.sendTyping(false, to: request.userID, started: typing)
        }
    }
}
