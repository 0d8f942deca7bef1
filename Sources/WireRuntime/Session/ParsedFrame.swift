/// A frame parsed once for any number of session machines: a server that sends one frame to many
/// sockets parses it here once, and each socket's ``SessionMachine`` observes it with
/// ``SessionMachine/observe(parsed:answeredCodes:)`` without reading the bytes again.
public struct ParsedFrame: Sendable {
    /// The frame's direction.
    public let direction: FrameDirection
    /// The parsed frame; `nil` when the bytes are not a JSON object with a string tag (such a
    /// frame breaks no session rule).
    let tape: JSONTape?
    /// The engine's number for the frame's message.
    let message: SessionEngine.MessageID?

    /// Parses `bytes` for the machines of `engine`.
    public init(json bytes: some Collection<UInt8>, from direction: FrameDirection, engine: SessionEngine, tagField: String = "type") {
        self.direction = direction
        var tape = JSONTape()
        guard (try? tape.parse(bytes)) != nil, tape.kind(0) == .object, let tagIndex = tape.member(of: 0, key: tagField),
            tape.kind(tagIndex) == .string
        else {
            self.tape = nil
            message = nil
            return
        }
        message = engine.messageID(for: FrameKey(direction, tape.string(tagIndex)))
        self.tape = tape
    }
}
