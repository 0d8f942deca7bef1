/// A type generated from a spec: decoded from JSON with full validation, encoded to JSON.
public protocol WireValue: JSONWritable, Sendable, Hashable, Codable {
    /// The plan of the type's protocol, which WireRuntime's engine checks values with.
    @_spi(Generated) static var validationPlan: ValidationPlan { get }
    /// Where the type's checks are in the plan.
    @_spi(Generated) static var planReference: ValidationPlan.Reference { get }
    /// Builds a value from a tape whose value at `index` passed the type's checks; `nil` only if
    /// it did not (the builder reads without checking again).
    @_spi(Generated) init?(checked tape: JSONTape.View, at index: Int)

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
    /// Checks the value at `index` of a tape with the engine, then builds it; throws every issue
    /// when it is invalid.
    @_spi(Generated) public static func decode(checking tape: JSONTape.View, at index: Int) throws(WireDecodingError) -> Self {
        let issues = validationPlan.check(tape, at: index, as: planReference)
        guard issues.errors.isEmpty, let value = Self(checked: tape, at: index) else { throw WireDecodingError(issues: issues) }
        return value
    }

    /// Decodes a value from UTF-8 JSON bytes (an HTTP body), validating it completely: parse,
    /// check with the engine, build. Throws every issue when it is invalid.
    public static func decode(_ bytes: some Collection<UInt8>) throws(WireDecodingError) -> Self {
        var tape = JSONTape()
        do {
            try tape.parse(bytes)
        } catch {
            throw WireDecodingError(issues: [], syntaxError: error)
        }
        return try tape.withView { view throws(WireDecodingError) in try decode(checking: view, at: JSONTape.root) }
    }

    /// Decodes a value from JSON, validating it completely; throws every issue when it is invalid.
    public static func decode(json: JSONValue) throws(WireDecodingError) -> Self {
        try decode(JSONWriter.bytes(json))
    }

    /// The `Codable` bridge: decodes through a `JSONValue`, so `Codable` applies the same checks.
    @_spi(Generated) public static func decode(from decoder: any Decoder) throws -> Self {
        let json = try JSONValue(from: decoder)
        do {
            return try decode(json: json)
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
