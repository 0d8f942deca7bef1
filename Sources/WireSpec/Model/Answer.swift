/// What a peer must answer when a frame breaks a rule: an error code (or nothing) and whether the
/// connection closes.
public struct Answer: Sendable, Hashable, Encodable {
    /// The error code, one of the spec's `errors:`; `nil` when nothing is sent and the connection
    /// just closes (only `validation.notJSON` and `validation.notAFrame` may say that).
    public var errorCode: String?
    /// Whether the connection closes after the answer. `nil` means "as the error code says".
    public var close: Bool?
    /// The WebSocket close code, when it differs from the error code's own.
    public var closeCode: Int?

    public init(errorCode: String?, close: Bool? = nil, closeCode: Int? = nil) {
        self.errorCode = errorCode
        self.close = close
        self.closeCode = closeCode
    }
}

/// An answer with "as the error code says" worked out: whether the connection closes and with which code.
public struct ResolvedAnswer: Sendable, Hashable {
    /// The error code sent; `nil` when nothing is sent.
    public var errorCode: String?
    public var closesConnection: Bool
    /// The WebSocket close code when the connection closes.
    public var closeCode: Int?
}

extension ProtocolSpec {
    /// Resolves an answer against the error table: `close` defaults to the code's `closes: always`,
    /// and the close code to the code's `closeCode`.
    public func resolved(_ answer: Answer) -> ResolvedAnswer {
        let closes = self.closes(answer)
        let closeCode = closes ? (answer.closeCode ?? answer.errorCode.flatMap(errorCode)?.closeCode) : nil
        return ResolvedAnswer(errorCode: answer.errorCode, closesConnection: closes, closeCode: closeCode)
    }
}
