/// A key's text and its UTF-8 bytes at a stable address, so frames can be compared with it
/// byte for byte without reference counting. Immutable after `init`.
@_spi(Generated) public final class UTF8Key: @unchecked Sendable {
    /// The key as text.
    public let text: String
    /// The key's UTF-8 bytes, valid as long as the key lives.
    public let bytes: UnsafeBufferPointer<UInt8>
    /// The key's bit in object key sketches (``JSONTape/keySignature(_:)``), worked out once.
    let signature: UInt64

    /// A key for `text`.
    public init(_ text: String) {
        self.text = text
        let count = text.utf8.count
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(count, 1))
        _ = storage.initialize(from: text.utf8)
        bytes = UnsafeBufferPointer(rebasing: storage[0..<count])
        signature = JSONTape.keySignature(bytes)
    }

    deinit {
        UnsafeMutablePointer(mutating: bytes.baseAddress!).deallocate()
    }
}
