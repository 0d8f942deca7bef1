import WireRuntime

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

extension ProtocolSpec {
    /// Resolves an answer against the error table: `close` defaults to the code's `closes: always`,
    /// and the close code to the code's `closeCode`.
    public func resolved(_ answer: Answer) -> ViolationAnswer {
        let closes = self.closes(answer)
        let closeCode = closes ? (answer.closeCode ?? answer.errorCode.flatMap(errorCode)?.closeCode) : nil
        guard let code = answer.errorCode else { return .closeSilently(closeCode: closeCode) }
        return ViolationAnswer(code: code, closesConnection: closes, closeCode: closeCode)
    }
}
