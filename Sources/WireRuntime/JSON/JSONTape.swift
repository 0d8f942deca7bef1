/// A JSON document parsed into a flat list of tokens that point into its bytes.
///
/// This is the strict parser behind ``JSONParser``: it rejects what a strict peer must reject
/// (trailing commas, comments, leading zeros, lone surrogates, invalid UTF-8, duplicate object keys,
/// nesting deeper than ``JSONParser/maxDepth``) and never traps on bad input. Nothing is allocated
/// per value: strings and numbers stay as byte ranges until asked for, so a tape reused for many
/// documents (each `parse` keeps its storage) checks a stream of frames without allocating.
///
/// Tokens are in document order. Index 0 is the root. An object's token is followed by its members,
/// each a key token then the value's tokens; an array's token is followed by its items.
public struct JSONTape: Sendable {
    /// What a token is.
    public enum Kind: UInt8, Sendable {
        case null, `false`, `true`, integer, number, string, array, object
    }

    /// One value (or key) of the document: 32 bytes, offsets as 32-bit numbers.
    @usableFromInline
    struct Token: Sendable {
        @usableFromInline var kind: Kind
        /// For strings: whether the text holds escapes; whether it is all ASCII.
        @usableFromInline var hasEscapes: Bool
        @usableFromInline var isASCII: Bool
        @usableFromInline var storedStart: UInt32
        @usableFromInline var storedEnd: UInt32
        @usableFromInline var storedNext: UInt32
        @usableFromInline var storedCount: UInt32
        /// An object's key sketch: the ``JSONTape/keySignature(_:)`` bits of its keys OR-ed
        /// together, or all bits when unknown. A key whose bit is clear is not a member. For an
        /// integer, its value (as ``integerValue``), worked out as the scan passed its digits. For
        /// a key, its signature slot (as ``sketchedSlot``) from its bytes as written, which is exact
        /// for every key of an object with an exact sketch.
        @usableFromInline var keys: UInt64

        @usableFromInline
        init(kind: Kind, hasEscapes: Bool, isASCII: Bool, start: Int, end: Int, next: Int) {
            self.kind = kind
            self.hasEscapes = hasEscapes
            self.isASCII = isASCII
            storedStart = UInt32(truncatingIfNeeded: start)
            storedEnd = UInt32(truncatingIfNeeded: end)
            storedNext = UInt32(truncatingIfNeeded: next)
            storedCount = 0
            keys = ~0
        }

        /// What fills room for tokens not yet written.
        @usableFromInline static let room = Token(kind: .null, hasEscapes: false, isASCII: true, start: 0, end: 0, next: 0)

        /// The value's bytes: a string's without its quotes; a container's from its bracket.
        @inlinable var start: Int {
            get { Int(storedStart) }
            set { storedStart = UInt32(truncatingIfNeeded: newValue) }
        }
        @inlinable var end: Int {
            get { Int(storedEnd) }
            set { storedEnd = UInt32(truncatingIfNeeded: newValue) }
        }
        /// The index of the token after this value and everything inside it.
        @inlinable var next: Int {
            get { Int(storedNext) }
            set { storedNext = UInt32(truncatingIfNeeded: newValue) }
        }
        /// An integer token's value (the scan stores it in ``keys``, which only objects use otherwise).
        @inlinable var integerValue: Int {
            get { Int(bitPattern: UInt(keys)) }
            set { keys = UInt64(UInt(bitPattern: newValue)) }
        }
        /// A sketched key's signature slot (see ``keys``).
        @inlinable var sketchedSlot: Int { Int(truncatingIfNeeded: keys) }
        /// A container's member or item count.
        @inlinable var count: Int {
            get { Int(storedCount) }
            set { storedCount = UInt32(truncatingIfNeeded: newValue) }
        }
    }

    /// The largest document a tape holds: offsets are 32-bit.
    public static let maxDocumentBytes = Int(UInt32.max) - 1

    /// A key's bit in object key sketches, from its length and first and last bytes.
    @inlinable
    @_spi(Generated) public static func keySignature(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        1 << UInt64(keySignatureSlot(key))
    }

    /// The position (0 to 63) of a key's bit in object key sketches, from its length and first
    /// and last bytes; 0 for the empty key.
    @inlinable @inline(__always)
    static func keySignatureSlot(_ key: UnsafeBufferPointer<UInt8>) -> Int {
        let count = key.count
        guard count > 0 else { return 0 }
        return (count &* 31 &+ Int(key[0]) &* 7 &+ Int(key[count - 1])) & 63
    }

    /// The signature slot of a key token of `bytes`, from its bytes as written (exact only when
    /// the key holds no escapes).
    @inlinable @inline(__always)
    static func keySignatureSlot(of token: Token, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        keySignatureSlot(UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]))
    }

    /// The document's UTF-8 bytes.
    public var bytes: [UInt8] {
        documentBytes == storage.indices ? storage : Array(storage[documentBytes])
    }
    /// The bytes the tape holds: the document alone, or a larger buffer it shares with its
    /// reader (``parse(in:range:)``), whose `documentBytes` are the document.
    @usableFromInline private(set) var storage: [UInt8] = []
    /// Where the document is in ``storage``; token offsets count from its start.
    @usableFromInline private(set) var documentBytes: Range<Int> = 0..<0
    /// Whether ``storage`` is a buffer the tape was given (``parse(in:range:)``) rather than its own.
    private var sharesBuffer = false
    /// The document's size in bytes.
    public var byteCount: Int { documentBytes.count }
    /// Room for tokens, kept from document to document: every element is room (its count is its
    /// capacity), and the first ``usedTokens`` are this document's. A scan writes them in place.
    @usableFromInline private(set) var tokens: [Token] = []
    /// How many of ``tokens`` are this document's.
    @usableFromInline private(set) var usedTokens = 0

    /// An empty tape; a `parse` method fills it.
    public init() {}

    /// Parses a document, keeping this tape's storage for the next one.
    public mutating func parse(_ source: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) {
        // A buffer shared with a reader is let go of: clearing it would allocate its capacity anew.
        if sharesBuffer { storage = [] }
        sharesBuffer = false
        storage.removeAll(keepingCapacity: true)
        storage.append(contentsOf: source)
        documentBytes = storage.indices
        try scanBytes()
    }

    /// Parses the document at `range` of `buffer`, sharing the buffer rather than copying the
    /// document out of it (the array's storage is counted, not copied). Tokens count from the
    /// start of `range`. The tape keeps the whole buffer alive for as long as it holds it; a
    /// reader that writes to the buffer afterwards gets a copy of its own, as for any array.
    public mutating func parse(in buffer: [UInt8], range: Range<Int>) throws(JSONSyntaxError) {
        try parse(in: buffer, range: range, enclosingDepth: 0)
    }

    /// Parses the value at `range` of `buffer` as ``parse(in:range:)`` does, when the value sits
    /// inside `enclosingDepth` containers of a larger document whose rest the caller has read:
    /// the nesting limit (``JSONParser/maxDepth``) counts those containers too, so the value
    /// parses exactly when the whole document would.
    public mutating func parse(in buffer: [UInt8], range: Range<Int>, enclosingDepth: Int) throws(JSONSyntaxError) {
        precondition(range.lowerBound >= 0 && range.upperBound <= buffer.count, "document range outside the buffer")
        precondition(enclosingDepth >= 0, "a negative enclosing depth")
        // A reader parses line after line of one buffer: when the tape already holds it, the
        // assignment would count a reference to it and let go of the same one.
        if !(sharesBuffer && Self.sameStorage(storage, buffer)) { storage = buffer }
        sharesBuffer = true
        documentBytes = range
        try scanBytes(enclosingDepth: enclosingDepth)
    }

    /// Whether two non-empty arrays are one storage: elements of one array's storage are at
    /// addresses no other live storage has.
    private static func sameStorage(_ first: [UInt8], _ second: [UInt8]) -> Bool {
        guard !first.isEmpty, first.count == second.count else { return false }
        return first.withUnsafeBufferPointer { first in second.withUnsafeBufferPointer { first.baseAddress == $0.baseAddress } }
    }

    /// Lets go of the tape's bytes (a buffer it may share with a reader), keeping the room for
    /// tokens; the tape holds an empty document until it parses another.
    public mutating func releaseBytes() {
        storage = []
        sharesBuffer = false
        documentBytes = 0..<0
        usedTokens = 0
    }

    /// Scans `bytes` into `tokens`, keeping the tokens' storage.
    private mutating func scanBytes(enclosingDepth: Int = 0) throws(JSONSyntaxError) {
        usedTokens = 0
        var tokens = self.tokens
        self.tokens = []
        defer { self.tokens = tokens }
        let range = documentBytes
        usedTokens = try storage.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
            try Self.scan(UnsafeBufferPointer(rebasing: buffer[range]), into: &tokens, enclosingDepth: enclosingDepth)
        }
    }

    /// Scans a whole document into `room` in place (every element of it is room, and a document
    /// with more tokens than that grows it); returns the document's token count.
    static func scan(_ buffer: UnsafeBufferPointer<UInt8>, into room: inout [Token], enclosingDepth: Int = 0) throws(JSONSyntaxError) -> Int {
        if room.isEmpty { room = Array(repeating: .room, count: stackTokens) }
        let (count, grown) = try room.withUnsafeMutableBufferPointer { room throws(JSONSyntaxError) -> (Int, [Token]?) in
            var storage = TokenStorage(startingIn: room, heapCapacity: min(buffer.count / 8 + 8, 1 << 16))
            defer { storage.release() }
            try scan(buffer, into: &storage, enclosingDepth: enclosingDepth)
            return (storage.count, storage.ownsBase ? Array(storage.tokens) : nil)
        }
        if var grown {
            // Twice the room this document needed, so that the next like it is scanned in place.
            grown.append(contentsOf: repeatElement(.room, count: grown.count))
            room = grown
        }
        return count
    }

    /// Scans a whole document into `storage`, which is empty.
    @usableFromInline
    static func scan(_ buffer: UnsafeBufferPointer<UInt8>, into storage: inout TokenStorage, enclosingDepth: Int = 0) throws(JSONSyntaxError) {
        guard buffer.count <= maxDocumentBytes else {
            throw JSONSyntaxError(reason: "documents larger than 4 GiB are not supported", offset: 0, line: 1, column: 1)
        }
        var scanner = Scanner(bytes: buffer, tokens: storage)
        defer { storage = scanner.tokens }
        scanner.skipWhitespace()
        try scanner.parseValue(depth: enclosingDepth)
        scanner.skipWhitespace()
        guard scanner.position == buffer.count else { throw scanner.error("unexpected data after the JSON value") }
    }

    /// Scans a document in place (without copying its bytes) and returns what `body` makes of a
    /// view of it. Inlinable, so that a frame type's decoding specialises it where it is called:
    /// the result comes back without generic metadata and without being copied on the way. A
    /// frame of up to 32 tokens (most frames) keeps them on the stack, so its scan allocates nothing.
    @inlinable
    @_spi(Generated) public static func scanning<Result>(
        _ buffer: UnsafeBufferPointer<UInt8>, _ body: (View) -> Result
    ) throws(JSONSyntaxError) -> Result {
        try withTokens(of: buffer) { body(View(bytes: buffer, tokens: $0)) }
    }

    /// Parses a document, taking `document` as the tape's bytes without copying them.
    public mutating func parse(adopting document: [UInt8]) throws(JSONSyntaxError) {
        storage = document
        sharesBuffer = true
        documentBytes = document.indices
        try scanBytes()
    }

    /// Parses a document from any bytes.
    public mutating func parse(_ source: some Collection<UInt8>) throws(JSONSyntaxError) {
        let done: Result<Void, JSONSyntaxError>? = source.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONSyntaxError) in try parse(buffer) }
        }
        if let done { return try done.get() }
        let copy = Array(source)
        try copy.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in try parse(buffer) }
    }

    /// Parses a document from text.
    public mutating func parse(_ text: String) throws(JSONSyntaxError) {
        var text = text
        let done: Result<Void, JSONSyntaxError> = text.withUTF8 { buffer in
            Result { () throws(JSONSyntaxError) in try parse(buffer) }
        }
        try done.get()
    }

    /// The number of tokens.
    public var tokenCount: Int { usedTokens }
}
