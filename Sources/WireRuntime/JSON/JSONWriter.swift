/// Writes a ``JSONValue`` in the canonical form generated values write themselves in: object keys sorted by their
/// UTF-8 bytes, no white space, only the escapes JSON requires. The same value always gives the
/// same bytes.
public enum JSONWriter {
    /// The canonical bytes of a value.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var output = JSONOutput()
        output.json(value)
        return output.bytes
    }

    /// The canonical text of a value.
    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

}
