/// Sliding-window rate limits, counted for one sender.
///
/// A ``SessionMachine`` counts its own connection's frames in one of these. A server whose limits
/// apply per device rather than per connection keeps one limiter per device and passes it to each
/// of the device's machines (see ``SessionMachine/observe(json:from:tagField:answeredCodes:rateLimits:)``).
/// Limits without a window (capacity limits, such as pending pairings across a provider) are not
/// counted here: they depend on state only the server has.
public struct RateLimiter: Sendable {
    private var windows: [SlidingWindow] = []

    /// An empty limiter: nothing counted yet.
    public init() {}

    /// Adds an event to window `index` at `time` (milliseconds) and returns how many events fall in
    /// the window ending at it.
    mutating func add(to index: Int, at time: Double, window: Double) -> Int {
        if windows.count <= index { windows.append(contentsOf: repeatElement(SlidingWindow(), count: index + 1 - windows.count)) }
        return windows[index].add(time, window: window)
    }
}

/// Timestamps inside a sliding window.
struct SlidingWindow: Sendable {
    private var times: [Double] = []
    private var start = 0

    /// Adds an event at `time` and returns how many events fall in the window ending at it.
    mutating func add(_ time: Double, window: Double) -> Int {
        while start < times.count, times[start] <= time - window { start += 1 }
        if start > 64, start * 2 > times.count {
            times.removeFirst(start)
            start = 0
        }
        // Room for a few events at once: most windows never hold more, and growing one at a
        // time would allocate three times for the first four.
        if times.isEmpty { times.reserveCapacity(8) }
        times.append(time)
        return times.count - start
    }
}
