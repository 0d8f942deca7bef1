import WireRuntime

/// A client-side sliding window for one of the spec's rate limits, so the client never sends
/// more than the server accepts: it says how long to wait before the next frame fits.
struct SendWindow: Sendable {
    let limit: Int
    let window: Duration
    private var sent: [Duration] = []

    init<Code>(_ rule: RateLimitRule<Code>) {
        limit = rule.limit
        window = rule.window ?? .zero
    }

    /// How long to wait at `now` (time since any fixed origin) before a frame fits; zero when it fits now.
    func wait(at now: Duration) -> Duration {
        let recent = sent.filter { now - $0 < window }
        guard recent.count >= limit else { return .zero }
        return recent[recent.count - limit] + window - now
    }

    /// Counts a frame sent at `now`.
    mutating func record(at now: Duration) {
        sent.append(now)
        sent.removeAll { now - $0 >= window }
    }
}
