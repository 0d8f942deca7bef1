/// Sliding-window rate limits, counted for one sender.
///
/// A ``SessionMachine`` counts its own connection's frames in one of these. A server whose limits
/// apply per device rather than per connection keeps one limiter per device and passes it to each
/// of the device's machines (see ``SessionMachine/observe(json:from:tagField:answeredCodes:rateLimits:)``).
/// Limits without a window (capacity limits, such as pending pairings across a provider) are not
/// counted here: they depend on state only the server has.
///
/// Every window the sender has used lives in one buffer, in the order they were first used: two
/// header words, then the window's ring of times. A window keeps only the latest `limit + 1`
/// times, which is all a limit needs to be judged, so a flood within one window does not grow
/// memory. A ring starts small and moves to the end of the buffer, twice as large, when it fills
/// before reaching that bound; the rings it leaves behind hold less than twice that bound. A
/// sender uses few of a protocol's windows (a connection that only pairs, one), so the buffer
/// holds only those, and finding one reads the headers of the few before it.
public struct RateLimiter: Sendable {
    /// Rings one after another, each `index << 32 | capacity`, `head << 32 | count`, then
    /// `capacity` times as the bit patterns of `Double`s; empty until the first event. A ring
    /// that moved leaves its old place behind with the index ``retired``.
    private var storage: [UInt64] = []

    /// The index of a ring that moved to the end of the buffer.
    private static let retired: UInt64 = 0xFFFF_FFFF
    /// The capacity of a window's first ring: most windows never hold more.
    private static let firstRing = 4

    /// An empty limiter: nothing counted yet.
    public init() {}

    /// Adds an event to window `index` (one of the engine's windowed limits) at `time`
    /// (milliseconds) and returns how many events fall in the window ending at it, counting at
    /// most `limit + 1` (enough to tell that the limit is broken, and all a window keeps, however
    /// fast a sender floods it).
    mutating func add(to index: Int, at time: Double, window: Double, limit: Int) -> Int {
        let keeping = max(limit, limit &+ 1)
        var header = ring(of: index) ?? appendRing(of: index, capacity: min(keeping, Self.firstRing))
        // The oldest times first, in the order they were added, as long as they have left the window.
        let (held, capacity) = storage.withUnsafeMutableBufferPointer { words in
            Self.forget(before: time - window, in: words, header: header)
        }
        if held == capacity, capacity < keeping { header = moveRing(at: header, growingTo: min(keeping, capacity &* 2)) }
        return storage.withUnsafeMutableBufferPointer { words in
            let capacity = Int(truncatingIfNeeded: words[header] & 0xFFFF_FFFF)
            var head = Int(truncatingIfNeeded: words[header &+ 1] >> 32)
            var count = Int(truncatingIfNeeded: words[header &+ 1] & 0xFFFF_FFFF)
            // Full at its bound: the oldest times are let go.
            while count > 0, count >= min(capacity, keeping) {
                head = head &+ 1 == capacity ? 0 : head &+ 1
                count &-= 1
            }
            let slot = head &+ count
            words[header &+ 2 &+ (slot >= capacity ? slot &- capacity : slot)] = time.bitPattern
            words[header &+ 1] = UInt64(head) << 32 | UInt64(count &+ 1)
            return count &+ 1
        }
    }

    /// How many words the limiter holds: its rings, their headers and the rings that moved.
    var storedWords: Int { storage.count }

    /// Where the ring of window `index` starts, if the window was used.
    private func ring(of index: Int) -> Int? {
        storage.withUnsafeBufferPointer { words in
            var header = 0
            while header < words.count {
                if words[header] >> 32 == UInt64(truncatingIfNeeded: index) { return header }
                header &+= 2 &+ Int(truncatingIfNeeded: words[header] & 0xFFFF_FFFF)
            }
            return nil
        }
    }

    /// Appends an empty ring of `capacity` times for window `index`; returns where it starts.
    private mutating func appendRing(of index: Int, capacity: Int) -> Int {
        let header = storage.count
        if storage.isEmpty { storage.reserveCapacity(2 &+ capacity) }
        storage.append(UInt64(truncatingIfNeeded: index) << 32 | UInt64(capacity))
        storage.append(0)
        for _ in 0..<capacity { storage.append(0) }
        return header
    }

    /// Lets go of the oldest times of the ring at `header` while they are at or before `cutoff`;
    /// returns how many times the ring then holds, and its capacity.
    private static func forget(before cutoff: Double, in words: UnsafeMutableBufferPointer<UInt64>, header: Int) -> (count: Int, capacity: Int) {
        let capacity = Int(truncatingIfNeeded: words[header] & 0xFFFF_FFFF)
        var head = Int(truncatingIfNeeded: words[header &+ 1] >> 32)
        var count = Int(truncatingIfNeeded: words[header &+ 1] & 0xFFFF_FFFF)
        while count > 0, Double(bitPattern: words[header &+ 2 &+ head]) <= cutoff {
            head = head &+ 1 == capacity ? 0 : head &+ 1
            count &-= 1
        }
        words[header &+ 1] = UInt64(head) << 32 | UInt64(count)
        return (count, capacity)
    }

    /// Moves the ring at `header` to the end of the buffer with room for `larger` times, its
    /// times oldest first, and retires its old place; returns where it starts now.
    private mutating func moveRing(at header: Int, growingTo larger: Int) -> Int {
        let index = storage[header] >> 32
        let capacity = Int(truncatingIfNeeded: storage[header] & 0xFFFF_FFFF)
        let head = Int(truncatingIfNeeded: storage[header &+ 1] >> 32)
        let count = Int(truncatingIfNeeded: storage[header &+ 1] & 0xFFFF_FFFF)
        let moved = storage.count
        storage.append(index << 32 | UInt64(larger))
        storage.append(UInt64(count))
        for position in 0..<count { storage.append(storage[header &+ 2 &+ (head &+ position) % capacity]) }
        for _ in count..<larger { storage.append(0) }
        storage[header] = Self.retired << 32 | UInt64(capacity)
        return moved
    }
}
