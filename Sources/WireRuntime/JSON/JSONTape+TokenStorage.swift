extension JSONTape {
    /// The tokens a scan writes, in storage the scan does not reference-count: a buffer on the
    /// caller's stack for a small document (no allocation), or on the heap, grown as needed.
    /// Tokens are plain values, so the storage never deinitialises them.
    @usableFromInline
    struct TokenStorage {
        @usableFromInline var base: UnsafeMutablePointer<Token>
        @usableFromInline var count = 0
        var capacity: Int
        /// Whether `base` was allocated here (and is freed by ``release()``).
        var ownsBase: Bool

        /// Storage that starts in `buffer` (which the caller owns) and moves to the heap if it fills.
        @usableFromInline
        init(startingIn buffer: UnsafeMutableBufferPointer<Token>) {
            base = buffer.baseAddress ?? .allocate(capacity: 1)
            capacity = buffer.baseAddress == nil ? 1 : buffer.count
            ownsBase = buffer.baseAddress == nil
        }

        /// Heap storage for `capacity` tokens to begin with.
        @usableFromInline
        init(capacity: Int) {
            self.capacity = max(capacity, 1)
            base = .allocate(capacity: self.capacity)
            ownsBase = true
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
            count += 1
        }

        @inline(never)
        mutating func grow() {
            let larger = UnsafeMutablePointer<Token>.allocate(capacity: capacity * 2)
            larger.moveInitialize(from: base, count: count)
            release()
            base = larger
            capacity *= 2
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

    /// The largest document whose tokens a scan keeps on the stack: at most one token per two
    /// bytes (`1,`, `[]`), so 1,026 tokens of 32 bytes, 32 KiB. Larger documents use the heap.
    @usableFromInline static let stackScanLimit = 2048

    /// The most tokens a document of `byteCount` bytes can have: every value or key takes at least
    /// two bytes with its separator, except the last.
    @inlinable static func maxTokens(byteCount: Int) -> Int { byteCount / 2 + 2 }

    /// Scans `buffer` and hands its tokens to `body`; the tokens live only during the call.
    @inlinable
    static func withTokens<Result>(
        of buffer: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<Token>) -> Result
    ) throws(JSONSyntaxError) -> Result {
        if buffer.count <= stackScanLimit {
            return try withUnsafeTemporaryAllocation(of: Token.self, capacity: maxTokens(byteCount: buffer.count)) {
                stack throws(JSONSyntaxError) -> Result in
                var storage = TokenStorage(startingIn: stack)
                defer { storage.release() }
                try scan(buffer, into: &storage)
                return body(storage.tokens)
            }
        }
        // About one token per eight bytes of compact JSON; the storage grows when there are more.
        var storage = TokenStorage(capacity: min(buffer.count / 8 + 8, 1 << 16))
        defer { storage.release() }
        try scan(buffer, into: &storage)
        return body(storage.tokens)
    }
}
