extension JSONTape {
    /// The tokens a scan writes, in storage the scan does not reference-count: a buffer on the
    /// caller's stack to begin with, so that a frame of up to ``stackTokens`` tokens (most
    /// frames) allocates nothing, then the heap, grown as needed. Tokens are plain values, so the
    /// storage never deinitialises them.
    @usableFromInline
    struct TokenStorage {
        @usableFromInline var base: UnsafeMutablePointer<Token>
        @usableFromInline var count = 0
        var capacity: Int
        /// Whether `base` was allocated here (and is freed by ``release()``).
        var ownsBase: Bool
        /// The capacity the storage moves to when `buffer` fills, at least.
        let heapCapacity: Int

        /// Storage that starts in `buffer` (which the caller owns) and moves to the heap, with
        /// room for at least `heapCapacity` tokens, if it fills.
        @usableFromInline
        init(startingIn buffer: UnsafeMutableBufferPointer<Token>, heapCapacity: Int) {
            base = buffer.baseAddress ?? .allocate(capacity: 1)
            capacity = buffer.baseAddress == nil ? 1 : buffer.count
            ownsBase = buffer.baseAddress == nil
            self.heapCapacity = heapCapacity
        }

        /// The tokens written so far.
        @inlinable var tokens: UnsafeBufferPointer<Token> { UnsafeBufferPointer(start: base, count: count) }

        /// Frees the storage when it was allocated here; the tokens are gone afterwards.
        @usableFromInline
        func release() {
            if ownsBase { base.deallocate() }
        }

        @inline(__always)
        mutating func append(_ token: Token) {
            if count == capacity { grow() }
            (base + count).initialize(to: token)
            // No overflow check: the count is below the capacity, which is an allocation's.
            count &+= 1
        }

        @inline(never)
        mutating func grow() {
            let larger = max(capacity * 2, heapCapacity)
            let storage = UnsafeMutablePointer<Token>.allocate(capacity: larger)
            storage.moveInitialize(from: base, count: count)
            release()
            base = storage
            capacity = larger
            ownsBase = true
        }

        subscript(index: Int) -> Token {
            @inline(__always) get {
                precondition(index >= 0 && index < count, "token index out of range")
                return base[index]
            }
            @inline(__always) nonmutating set {
                precondition(index >= 0 && index < count, "token index out of range")
                base[index] = newValue
            }
        }
    }

    /// The tokens a scan keeps on the stack: as many as fit in 1 KiB (32), the most the standard
    /// library places on the stack without asking whether it is safe (on Linux it then answers
    /// no, and the buffer goes to the heap). A chat message is 7 tokens, a stream snapshot 15.
    @usableFromInline static let stackTokens = 1024 / MemoryLayout<Token>.stride

    /// Scans `buffer` and hands its tokens to `body`; the tokens live only during the call.
    @inlinable
    static func withTokens<Result>(
        of buffer: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<Token>) -> Result
    ) throws(JSONSyntaxError) -> Result {
        try withUnsafeTemporaryAllocation(of: Token.self, capacity: stackTokens) { stack throws(JSONSyntaxError) -> Result in
            // Past the stack: about one token per eight bytes of compact JSON, then doubling.
            var storage = TokenStorage(startingIn: stack, heapCapacity: min(buffer.count / 8 + 8, 1 << 16))
            defer { storage.release() }
            try scan(buffer, into: &storage)
            return body(storage.tokens)
        }
    }
}
