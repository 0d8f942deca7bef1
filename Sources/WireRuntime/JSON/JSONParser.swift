/// Why bytes are not a JSON document, and where.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var reason: String
    /// The 0-based byte offset of the problem.
    public var offset: Int
    /// The 1-based line of the problem.
    public var line: Int
    /// The 1-based column (in bytes) of the problem.
    public var column: Int

    public var description: String { "\(reason) at line \(line), column \(column)" }
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes, producing a ``JSONValue``.
///
/// It rejects what a strict peer must reject (trailing commas, comments, leading zeros, lone
/// surrogates, invalid UTF-8, duplicate object keys, nesting deeper than `maxDepth`) and never
/// traps on bad input. The scanning is ``JSONTape``'s; this builds values from the tape.
public struct JSONParser {
    /// The deepest nesting accepted; deeper documents are rejected instead of exhausting the stack.
    public static let maxDepth = 256

    /// Parses a complete document from bytes.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var tape = JSONTape()
        try tape.parse(bytes)
        return tape.value(JSONTape.root)
    }

    /// Parses a complete document from text.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var tape = JSONTape()
        try tape.parse(text)
        return tape.value(JSONTape.root)
    }
}
