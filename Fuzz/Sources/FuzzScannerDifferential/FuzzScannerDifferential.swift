import Foundation
import WireRuntime

/// The tape scanner and Foundation's `JSONSerialization` accept and reject the same documents
/// (RFC 8259). Rejections that are the scanner's choices where RFC 8259 leaves one are set aside:
/// duplicate keys, nesting deeper than 256, numbers out of range and unpaired surrogate escapes.
/// Foundation's leniency is set aside too: it accepts a trailing comma before `]` or `}`.
/// Inputs with a NUL byte or a byte order mark are skipped: Foundation reads those as UTF-16 or
/// UTF-32, which RFC 8259 does not allow on the wire.
func fuzzScannerDifferential(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let buffer = UnsafeBufferPointer(start: data, count: size)
    guard !buffer.contains(0), !buffer.starts(with: [0xEF, 0xBB, 0xBF]) else { return 0 }
    var tape = JSONTape()
    let scanner = Result { () throws(JSONSyntaxError) in try tape.parse(buffer) }
    let foundation = (try? JSONSerialization.jsonObject(with: Data(buffer), options: [.fragmentsAllowed])) != nil
    switch scanner {
    case .success:
        guard foundation else { fatalError("the scanner accepts what JSONSerialization rejects: \(String(decoding: buffer, as: UTF8.self))") }
    case .failure(let error):
        guard !foundation || error.isChoice || error.followsATrailingComma(in: buffer) else {
            fatalError("the scanner rejects what JSONSerialization accepts (\(error)): \(String(decoding: buffer, as: UTF8.self))")
        }
    }
    return 0
}

extension JSONSyntaxError {
    /// Whether the scanner rejects the document by choice where RFC 8259 lets a parser accept it.
    var isChoice: Bool {
        let text = description
        return ["duplicate key", "nesting deeper", "out of range", "surrogate"].contains { text.contains($0) }
    }
}

extension JSONSyntaxError {
    /// Whether the error is at a `]` or `}` right after a comma (white space aside): a trailing
    /// comma, which RFC 8259 forbids and Foundation accepts.
    func followsATrailingComma(in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard offset < buffer.count, buffer[offset] == UInt8(ascii: "]") || buffer[offset] == UInt8(ascii: "}") else { return false }
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        return buffer[..<offset].last { !whitespace.contains($0) } == UInt8(ascii: ",")
    }
}
