import ClawlineProtocol

/// The assistant's work for this node's devices: each device's answer queue, the latest
/// snapshot of each stream in progress, and each account's typing window. The hub owns one and
/// changes it only on its actor.
struct AnswerScheduler {
    /// Each device's assistant queue.
    private var queues: [String: AnswerQueue] = [:]
    /// The latest snapshot of each stream in progress, by the device whose message it answers.
    private var snapshots: [String: (userID: String, message: ServerMessage)] = [:]
    /// When each account's devices were last sent assistant typing, on the server's clock.
    private var typingSent: [String: [Duration]] = [:]

    /// The queue of a device, made with `make` when it has none.
    mutating func queue(of deviceID: String, make: () -> AnswerQueue) -> AnswerQueue {
        if let queue = queues[deviceID] { return queue }
        let queue = make()
        queues[deviceID] = queue
        return queue
    }

    /// Whether a device's queue has no room for another message.
    func isFull(_ deviceID: String) -> Bool { queues[deviceID]?.isFull ?? false }

    /// Drops a device's waiting answers and cancels the one in progress.
    mutating func cancel(_ deviceID: String) {
        queues.removeValue(forKey: deviceID)?.cancel()
    }

    /// How many answers are in progress or waiting, over every device.
    var outstandingCount: Int { queues.values.reduce(0) { $0 + $1.count } }

    /// The client messages whose answers are in progress or waiting, by device.
    var outstanding: [(deviceID: String, clientMessageIDs: [String])] {
        queues.map { ($0.key, $0.value.clientMessageIDs) }
    }

    /// Cancels every device's answers; returns the queues, whose workers end shortly.
    @discardableResult
    mutating func cancelAll() -> [AnswerQueue] {
        let cancelled = Array(queues.values)
        for queue in cancelled { queue.cancel() }
        queues.removeAll()
        return cancelled
    }

    /// Remembers the latest snapshot of the stream answering `deviceID`.
    mutating func streamed(_ snapshot: ServerMessage, answering deviceID: String, of userID: String) {
        snapshots[deviceID] = (userID, snapshot)
    }

    /// Forgets the stream answering `deviceID`.
    mutating func streamEnded(answering deviceID: String) {
        snapshots[deviceID] = nil
    }

    /// The latest snapshots of an account's streams in progress.
    func snapshots(of userID: String) -> [ServerMessage] {
        snapshots.values.filter { $0.userID == userID }.map(\.message)
    }

    /// Whether typing may be sent to an account now, within the spec's `assistant_typing` limit:
    /// an indicator starts only when the window has room for it and the end that follows it, and
    /// ends only if it started. Counts it when it may.
    mutating func mayType(_ active: Bool, to userID: String, started: Bool, now: Duration) -> Bool {
        let rule = Clawline.RateLimits.assistantTyping
        var sent = typingSent[userID, default: []]
        if let window = rule.window { sent.removeAll { $0 <= now - window } }
        defer { typingSent[userID] = sent.isEmpty ? nil : sent }
        if active ? sent.count + 2 > rule.limit : !started { return false }
        sent.append(now)
        return true
    }
}
