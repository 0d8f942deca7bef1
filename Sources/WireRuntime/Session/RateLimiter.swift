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
        let ring = storage.withUnsafeMutableBufferPointer { words in
            Self.forget(before: time - window, in: words, header: header)
        }
        if ring.count == ring.capacity, ring.capacity < keeping { header = moveRing(ring, growingTo: min(keeping, ring.capacity &* 2)) }
        return storage.withUnsafeMutableBufferPointer { words in
            var ring = Ring(at: header, in: words)
            // Full at its bound: the oldest times are let go.
            while ring.count > 0, ring.count >= min(ring.capacity, keeping) { ring.dropOldest() }
            words[ring.word(ring.count)] = time.bitPattern
            ring.count &+= 1
            ring.store(in: words)
            return ring.count
        }
    }

    /// How many words the limiter holds: its rings, their headers and the rings that moved.
    var storedWords: Int { storage.count }

    /// A ring as its two header words say: where it starts, its room, and where its oldest time
    /// is and how many it holds (the times follow the header, wrapping round the room).
    private struct Ring {
        let header: Int
        let capacity: Int
        var head: Int
        var count: Int

        /// The ring whose header is at `header` of `words`.
        init(at header: Int, in words: UnsafeMutableBufferPointer<UInt64>) {
            self.header = header
            capacity = Self.capacity(of: words[header])
            head = Int(truncatingIfNeeded: words[header &+ 1] >> 32)
            count = Int(truncatingIfNeeded: words[header &+ 1] & 0xFFFF_FFFF)
        }

        /// A ring's first header word: its window's index and its room.
        static func firstWord(index: UInt64, capacity: Int) -> UInt64 { index << 32 | UInt64(capacity) }

        /// The room a ring's first header word gives.
        static func capacity(of firstWord: UInt64) -> Int { Int(truncatingIfNeeded: firstWord & 0xFFFF_FFFF) }

        /// Where the time `position` places after the oldest is (`position` up to the room).
        func word(_ position: Int) -> Int {
            let slot = head &+ position
            return header &+ 2 &+ (slot >= capacity ? slot &- capacity : slot)
        }

        /// Lets go of the oldest time.
        mutating func dropOldest() {
            head = head &+ 1 == capacity ? 0 : head &+ 1
            count &-= 1
        }

        /// Writes where the oldest time is and how many there are back to the header.
        func store(in words: UnsafeMutableBufferPointer<UInt64>) {
            words[header &+ 1] = UInt64(head) << 32 | UInt64(count)
        }
    }

    /// Where the ring of window `index` starts, if the window was used.
    private func ring(of index: Int) -> Int? {
        storage.withUnsafeBufferPointer { words in
            var header = 0
            while header < words.count {
                if words[header] >> 32 == UInt64(truncatingIfNeeded: index) { return header }
                header &+= 2 &+ Ring.capacity(of: words[header])
            }
            return nil
        }
    }

    /// Appends an empty ring of `capacity` times for window `index`; returns where it starts.
    private mutating func appendRing(of index: Int, capacity: Int) -> Int {
        let header = storage.count
        if storage.isEmpty { storage.reserveCapacity(2 &+ capacity) }
        storage.append(Ring.firstWord(index: UInt64(truncatingIfNeeded: index), capacity: capacity))
        storage.append(0)
        for _ in 0..<capacity { storage.append(0) }
        return header
    }

    /// Lets go of the oldest times of the ring at `header` while they are at or before `cutoff`;
    /// returns the ring as it is then.
    private static func forget(before cutoff: Double, in words: UnsafeMutableBufferPointer<UInt64>, header: Int) -> Ring {
        var ring = Ring(at: header, in: words)
        while ring.count > 0, Double(bitPattern: words[ring.word(0)]) <= cutoff { ring.dropOldest() }
        ring.store(in: words)
        return ring
    }

    /// Moves `ring` to the end of the buffer with room for `larger` times, its times oldest
    /// first, and retires its old place; returns where it starts now.
    private mutating func moveRing(_ ring: Ring, growingTo larger: Int) -> Int {
        let moved = storage.count
        storage.append(Ring.firstWord(index: storage[ring.header] >> 32, capacity: larger))
        storage.append(UInt64(ring.count))
        for position in 0..<ring.count { storage.append(storage[ring.word(position)]) }
        for _ in ring.count..<larger { storage.append(0) }
        storage[ring.header] = Ring.firstWord(index: Self.retired, capacity: ring.capacity)
        return moved
    }
}
