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

    /// Adds an event to window `index` (of `windowCount`, the engine's windowed limits) at `time`
    /// (milliseconds) and returns how many events fall in the window ending at it, counting at
    /// most `limit + 1` (enough to tell that the limit is broken, and all a window keeps, however
    /// fast a sender floods it). Room for every window is made at once, on the first event.
    mutating func add(to index: Int, of windowCount: Int, at time: Double, window: Double, limit: Int) -> Int {
        if windows.count <= index {
            if windows.isEmpty { windows.reserveCapacity(max(windowCount, index + 1)) }
            // Appended one by one: appending a repeated element went through a generic path.
            while windows.count <= index { windows.append(SlidingWindow()) }
        }
        return windows[index].add(time, window: window, keeping: max(limit, limit &+ 1))
    }
}

/// Timestamps inside a sliding window: the latest `keeping` of them, since a limit needs no more
/// to be judged, so a flood within one window does not grow memory.
struct SlidingWindow: Sendable {
    private var times: [Double] = []
    private var start = 0

    /// How many times the window holds in storage (kept ones and ones not yet compacted away).
    var storedCount: Int { times.count }

    /// Adds an event at `time` and returns how many events fall in the window ending at it, or
    /// `keeping` when more do: the oldest event beyond the latest `keeping` is let go. The count
    /// decides a limit exactly when `keeping` exceeds it, since the events let go are older than
    /// the ones kept and leave the window first.
    mutating func add(_ time: Double, window: Double, keeping: Int) -> Int {
        while start < times.count, times[start] <= time - window { start += 1 }
        if start > 64, start * 2 > times.count {
            times.removeFirst(start)
            start = 0
        }
        // Room for a few events at once (no more than the window keeps): most windows never
        // hold more, and growing one at a time would allocate three times for the first four.
        if times.isEmpty { times.reserveCapacity(min(8, keeping)) }
        times.append(time)
        if times.count - start > keeping { start += 1 }
        return times.count - start
    }
}
