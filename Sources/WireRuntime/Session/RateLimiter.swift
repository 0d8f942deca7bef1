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
    /// fast a sender floods it). The windows are made all at once, on the first event.
    mutating func add(to index: Int, of windowCount: Int, at time: Double, window: Double, limit: Int) -> Int {
        if windows.count <= index {
            windows.reserveCapacity(max(windowCount, index + 1))
            windows.append(contentsOf: repeatElement(SlidingWindow(), count: max(windowCount, index + 1) - windows.count))
        }
        return windows[index].add(time, window: window, keeping: max(limit, limit &+ 1))
    }
}

/// Timestamps inside a sliding window: the latest `keeping` of them, since a limit needs no more
/// to be judged, so a flood within one window does not grow memory.
///
/// The times are a ring, oldest first. Up to ``inlineCapacity`` of them (most limits keep no
/// more) are held in the window itself, so counting a session's first frames allocates nothing;
/// a larger limit's ring is an array that grows to at most `keeping` times.
struct SlidingWindow: Sendable {
    /// How many times a window holds without allocating.
    static let inlineCapacity = 8

    private var inline: (Double, Double, Double, Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// The ring when it outgrows ``inlineCapacity``; empty until then.
    private var spilled: [Double] = []
    /// The ring slot of the oldest time, and how many times the ring holds.
    private var oldest = 0
    private var count = 0

    /// How many times the window holds in storage.
    var storedCount: Int { count }

    /// The ring's capacity: its array's size once spilled.
    private var capacity: Int { spilled.isEmpty ? Self.inlineCapacity : spilled.count }

    /// Adds an event at `time` and returns how many events fall in the window ending at it, or
    /// `keeping` when more do: the oldest event beyond the latest `keeping` is let go. The count
    /// decides a limit exactly when `keeping` exceeds it, since the events let go are older than
    /// the ones kept and leave the window first.
    mutating func add(_ time: Double, window: Double, keeping: Int) -> Int {
        let keeping = max(keeping, 1)
        let capacity = self.capacity
        // Times that have left the window, oldest first.
        while count > 0, self[oldest] <= time - window {
            oldest = oldest &+ 1 == capacity ? 0 : oldest &+ 1
            count &-= 1
        }
        if count >= keeping {
            // The oldest kept time makes way for this one.
            oldest = oldest &+ 1 == capacity ? 0 : oldest &+ 1
            count &-= 1
        } else if count == capacity {
            grow(keeping: keeping)
        }
        let end = oldest &+ count
        self[end >= self.capacity ? end &- self.capacity : end] = time
        count &+= 1
        return count
    }

    /// Moves a full ring into an array twice its size (at most `keeping`), oldest first.
    private mutating func grow(keeping: Int) {
        let capacity = self.capacity
        var larger = [Double](repeating: 0, count: min(max(capacity * 2, Self.inlineCapacity), max(keeping, capacity + 1)))
        for position in 0..<count {
            let slot = oldest &+ position
            larger[position] = self[slot >= capacity ? slot &- capacity : slot]
        }
        spilled = larger
        oldest = 0
    }

    /// The time in ring slot `slot`.
    private subscript(slot: Int) -> Double {
        get {
            guard spilled.isEmpty else { return spilled[slot] }
            return withUnsafeBytes(of: inline) { $0.load(fromByteOffset: slot &* 8, as: Double.self) }
        }
        set {
            guard spilled.isEmpty else {
                spilled[slot] = newValue
                return
            }
            withUnsafeMutableBytes(of: &inline) { $0.storeBytes(of: newValue, toByteOffset: slot &* 8, as: Double.self) }
        }
    }
}
