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
        let result: Result<JSONValue, JSONSyntaxError>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(buffer: buffer) }
        }
        if let result { return try result.get() }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) -> JSONValue in try parse(buffer: buffer) }
    }

    /// Parses a complete document from text.
    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var text = text
        let result: Result<JSONValue, JSONSyntaxError> = text.withUTF8 { buffer in
            Result { () throws(JSONSyntaxError) -> JSONValue in try parse(buffer: buffer) }
        }
        return try result.get()
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        try JSONTape.scanning(buffer) { $0.value(JSONTape.root) }
    }
}
