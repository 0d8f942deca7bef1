/// A type generated from a spec: decoded from JSON with full validation, encoded to JSON.
public protocol WireValue: Sendable, Hashable, Codable {
    /// Decodes and validates a value, reporting every issue into `context`; `nil` when there is an error.
    @_spi(Generated) static func decode(
        from json: JSONValue, at path: @autoclosure () -> JSONPath, in context: inout ValidationContext, answer: ViolationAnswer
    ) -> Self?

    /// The value as JSON.
    func jsonValue() -> JSONValue
}

/// A value that did not decode: bytes that are not JSON, or JSON that breaks the spec.
public struct WireDecodingError: Error, Sendable, CustomStringConvertible {
    /// Every issue found; empty when the bytes are not JSON.
    public var issues: [ValidationIssue]
    /// Why the bytes are not JSON, when they are not.
    public var syntaxError: JSONSyntaxError?

    @_spi(Generated) public init(issues: [ValidationIssue], syntaxError: JSONSyntaxError? = nil) {
        self.issues = issues
        self.syntaxError = syntaxError
    }

    public var description: String {
        if let syntaxError { return "not JSON: \(syntaxError)" }
        return issues.map(\.description).joined(separator: "; ")
    }
}

extension WireValue {
    /// Decodes a value from JSON, validating it completely; throws every issue when it is invalid.
    @_spi(Generated) public static func decode(
        from json: JSONValue, sizeAnswer: ViolationAnswer, answer: ViolationAnswer
    ) throws(WireDecodingError) -> Self {
        var context = ValidationContext(sizeAnswer: sizeAnswer)
        guard let value = decode(from: json, at: .root, in: &context, answer: answer) else {
            throw WireDecodingError(issues: context.issues)
        }
        return value
    }

    /// Decodes a value from UTF-8 JSON bytes (an HTTP body), validating it completely. Generated
    /// body types have a one-argument `decode(_:)` that passes their protocol's answers.
    @_spi(Generated) public static func decode(
        _ bytes: some Collection<UInt8>, sizeAnswer: ViolationAnswer, answer: ViolationAnswer
    ) throws(WireDecodingError) -> Self {
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            throw WireDecodingError(issues: [], syntaxError: error)
        }
        return try decode(from: json, sizeAnswer: sizeAnswer, answer: answer)
    }

    /// The canonical JSON bytes of the value (sorted keys, no white space), e.g. an HTTP body.
    public func encoded() -> [UInt8] { JSONWriter.bytes(jsonValue()) }

    /// The `Codable` bridge: decodes through a `JSONValue`, so `Codable` applies the same validation.
    @_spi(Generated) public static func decode(from decoder: any Decoder, sizeAnswer: ViolationAnswer, answer: ViolationAnswer) throws -> Self {
        let json = try JSONValue(from: decoder)
        do {
            return try decode(from: json, sizeAnswer: sizeAnswer, answer: answer)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error))
        }
    }
}

/// A generated message type: a value whose JSON carries the protocol's tag.
public protocol WireMessage: WireValue {
    /// The message's tag, the value of the protocol's tag field.
    static var tag: String { get }
    /// Who sends it.
    static var direction: FrameDirection { get }
}
