import FuzzedClawlineProtocol
import WireRuntime

/// Any bytes as a Clawline frame from either side: decoding never crashes, and a frame that
/// decodes encodes to bytes that decode to the same frame.
func fuzzFrameDecoding(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if case .decoded(let frame, _) = ClientFrame.decode(bytes) {
        guard case .decoded(let again, _) = ClientFrame.decode(JSONWriter.bytes(frame.jsonValue())), again == frame else {
            fatalError("a decoded client frame does not survive encoding")
        }
    }
    if case .decoded(let frame, _) = ServerFrame.decode(bytes) {
        guard case .decoded(let again, _) = ServerFrame.decode(JSONWriter.bytes(frame.jsonValue())), again == frame else {
            fatalError("a decoded server frame does not survive encoding")
        }
    }
    return 0
}
