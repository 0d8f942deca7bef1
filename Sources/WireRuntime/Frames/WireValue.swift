/// A type generated from a spec: decoded from JSON with full validation, encoded to JSON.
public protocol WireValue: Sendable, Hashable, Codable {
    /// Decodes and validates a value, reporting every issue into `context`; `nil` when there is an error.
    static func decode(from json: JSONValue, at path: @autoclosure () -> JSONPath, in context: inout ValidationContext, answer: ViolationAnswer) -> Self?

    /// The value as JSON.
    func jsonValue() -> JSONValue
}

/// A value that did not pass validation when decoded through `Codable`.
public struct WireDecodingError: Error, Sendable, CustomStringConvertible {
    /// Every issue found.
    public var issues: [ValidationIssue]
    public var description: String { issues.map(\.description).joined(separator: "; ") }
}

extension WireValue {
    /// Decodes a value from JSON, validating it completely; throws every issue when it is invalid.
    public static func decode(from json: JSONValue, sizeAnswer: ViolationAnswer, answer: ViolationAnswer) throws(WireDecodingError) -> Self {
        var context = ValidationContext(sizeAnswer: sizeAnswer)
        guard let value = decode(from: json, at: .root, in: &context, answer: answer) else {
            throw WireDecodingError(issues: context.issues)
        }
        return value
    }

    /// The `Codable` bridge: decodes through a `JSONValue`, so `Codable` applies the same validation.
    public static func decode(from decoder: any Decoder, sizeAnswer: ViolationAnswer, answer: ViolationAnswer) throws -> Self {
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
