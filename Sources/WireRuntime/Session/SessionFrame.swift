/// A frame of a session as ``SessionMachine`` reads it: which message it is, and its JSON object
/// on a parsed tape. The view is only valid inside the `withView` call that made it, so a frame
/// is made, observed and dropped there.
@_spi(Generated) public struct SessionFrame {
    /// The engine's number for the frame's message (see ``SessionEngine/messageID(for:)``).
    public var message: SessionEngine.MessageID
    /// The parsed frame.
    public var tape: JSONTape.View
    /// The index of the frame's JSON object on the tape.
    public var object: Int

    /// A frame of `message` whose object is at `object` of `tape`.
    public init(message: SessionEngine.MessageID, tape: JSONTape.View, object: Int) {
        self.message = message
        self.tape = tape
        self.object = object
    }

    /// The value of a top-level field.
    func value(_ key: UTF8Key) -> JSONValue? {
        tape.member(of: object, key: key).map { tape.value($0) }
    }

    /// A hash of a top-level field's value (see `JSONTape.View.valueHash`), or `nil` when it is absent.
    func hash(_ key: UTF8Key) -> Int? {
        tape.member(of: object, key: key).map { tape.valueHash($0) }
    }

    /// Whether every condition holds for the frame.
    func satisfies(_ conditions: [FieldCondition]) -> Bool {
        FieldCondition.allHold(conditions, in: tape, at: object)
    }
}
