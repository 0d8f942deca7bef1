import WireRuntime

/// Any bytes: the tape scanner either parses them or throws a syntax error, and a parsed tape's
/// values can all be read back.
func fuzzTapeScanner(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    var tape = JSONTape()
    guard (try? tape.parse(UnsafeBufferPointer(start: data, count: size))) != nil else { return 0 }
    let value = tape.value(0)
    // What the writer makes of the value parses back to the same value.
    var again = JSONTape()
    guard (try? again.parse(JSONWriter.bytes(value))) != nil, again.value(0) == value else {
        fatalError("the canonical form of a parsed value does not parse back to it")
    }
    return 0
}
