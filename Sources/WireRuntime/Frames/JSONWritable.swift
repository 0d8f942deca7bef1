/// A value that writes its own canonical JSON: the generated values and frames.
public protocol JSONWritable {
    /// Writes the value's canonical JSON: the generated code's plumbing (encode with ``encoded()``).
    @_spi(Generated) func write(into output: inout JSONOutput)
}

extension JSONWritable {
    /// The canonical JSON bytes (sorted keys, no white space), written straight from the value.
    public func encoded() -> [UInt8] {
        var output = JSONOutput()
        write(into: &output)
        return output.bytes
    }

    /// The canonical JSON text, for WebSocket text messages.
    public func encodedText() -> String { String(decoding: encoded(), as: UTF8.self) }

    /// The value as a JSON tree, read back from its canonical bytes.
    public func jsonValue() -> JSONValue { JSONValue(canonical: encoded()) }
}
