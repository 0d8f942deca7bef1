/// What a peer must answer when a frame breaks a rule: an error code and whether the connection closes.
public struct Answer: Sendable, Hashable, Encodable {
    /// The error code, one of the spec's `errors:`.
    public var errorCode: String
    /// Whether the connection closes after the answer. `nil` means "as the error code says".
    public var close: Bool?
    /// The WebSocket close code, when it differs from the error code's own.
    public var closeCode: Int?

    public init(errorCode: String, close: Bool? = nil, closeCode: Int? = nil) {
        self.errorCode = errorCode
        self.close = close
        self.closeCode = closeCode
    }
}
