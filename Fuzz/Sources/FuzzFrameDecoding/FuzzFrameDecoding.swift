import FuzzedClawlineProtocol
import WireRuntime

/// Any bytes as a Clawline frame from either side: decoding never crashes, a frame that decodes
/// encodes (straight from the value) to bytes that decode to the same frame, and those bytes are
/// the canonical form of the frame's JSON tree.
func fuzzFrameDecoding(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if case .decoded(let frame, _) = ClientFrame.decode(bytes) {
        check(frame, roundTrip: ClientFrame.decode)
    }
    if case .decoded(let frame, _) = ServerFrame.decode(bytes) {
        check(frame, roundTrip: ServerFrame.decode)
    }
    return 0
}

private func check<Frame: WireFrame & Equatable>(_ frame: Frame, roundTrip decode: ([UInt8]) -> FrameDecodeResult<Frame>) {
    let encoded = frame.encoded()
    guard case .decoded(let again, _) = decode(encoded), again == frame else {
        fatalError("a decoded \(Frame.direction) frame does not survive encoding: \(String(decoding: encoded, as: UTF8.self))")
    }
    guard JSONWriter.bytes(frame.jsonValue()) == encoded else {
        fatalError("the encoding of a \(Frame.direction) frame is not canonical: \(String(decoding: encoded, as: UTF8.self))")
    }
}
