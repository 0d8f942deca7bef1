// Must compile: what an app does with ClawlineProtocol alone (the control for the probes beside it).
import ClawlineProtocol

func publicSurface() throws {
    let frame = ClientFrame.auth(Auth(token: "t", deviceId: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", lastMessageId: .value("s_1")))
    let text: String = frame.encodedText()
    let bytes: [UInt8] = frame.encoded()
    _ = frame.jsonValue()
    switch ServerFrame.decode(text: #"{"type":"ack","id":"c_1"}"#) {
    case .decoded(let decoded, _): _ = decoded.tag
    case let rejected: _ = rejected.rejectionReason
    }
    _ = ClientFrame.decode(bytes).answer
    _ = frame.validate()
    _ = frame.encodedData()
    _ = (text, Clawline.Constants.maxFrameBytes, Clawline.sessionRules, Clawline.RateLimits.all)
    _ = JSONWriter.string(.object(["a": .integer(1)]))
}
