/// The events of a socket, kept in order until the probe reads them; a read waits at most its
/// timeout. Transports for ``ProbeSocket`` deliver into one.
public actor ProbeInbox {
    private var events: [ProbeEvent] = []
    private var ended = false
    private var waiter: (id: Int, continuation: CheckedContinuation<ProbeEvent?, Never>)?
    private var waits = 0

    /// An empty inbox.
    public init() {}

    /// Adds an event (a `.closed` event ends the inbox after it).
    public func deliver(_ event: ProbeEvent) {
        guard !ended else { return }
        if case .closed = event { ended = true }
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: event)
        } else {
            events.append(event)
        }
    }

    /// The next event, or `nil` when none came within `timeout` (or the inbox ended and is empty).
    public func next(within timeout: Duration) async -> ProbeEvent? {
        if !events.isEmpty { return events.removeFirst() }
        if ended { return nil }
        waits += 1
        let id = waits
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expire(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in waiter = (id, continuation) }
    }

    private func expire(_ id: Int) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: nil)
    }
}
