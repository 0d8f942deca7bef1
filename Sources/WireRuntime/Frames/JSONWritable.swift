/// A value that writes its own canonical JSON: the generated values and frames.
public protocol JSONWritable {
    /// Writes the value's canonical JSON: the generated code's plumbing (encode with ``encoded()``).
    @_spi(Generated) func write(into output: inout JSONOutput)
}

extension JSONWritable {
    /// The canonical JSON bytes (sorted keys, no white space), written straight from the value.
    ///
    /// The array starts with room for 512 bytes, which most frames fit in without growing it
    /// (growing it three times from a small start cost a tenth of the encode); a caller that keeps
    /// many small frames for long may copy them into arrays of their own size.
    public func encoded() -> [UInt8] {
        var output = JSONOutput(capacity: 512)
        write(into: &output)
        return output.bytes
    }

    /// The canonical JSON text, for WebSocket text messages.
    public func encodedText() -> String { String(decoding: encoded(), as: UTF8.self) }

    /// The value as a JSON tree, read back from its canonical bytes.
    public func jsonValue() -> JSONValue { JSONValue(canonical: encoded()) }
}
