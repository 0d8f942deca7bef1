/// A sequence of frames between named participants, drawn as a sequence diagram in the docs
/// (pairing, authentication with replay, a streamed answer, ...).
public struct Flow: Sendable, Hashable, Encodable {
    /// One arrow or note of a flow.
    public struct Step: Sendable, Hashable, Encodable {
        /// The sending participant (absent for a note).
        public var from: String?
        /// The receiving participant (absent for a note).
        public var to: String?
        /// The frame sent, when the step is a frame.
        public var frame: MessageRef?
        /// The arrow's label; by default the frame's tag.
        public var label: String?
        /// A note drawn across all participants (alone) or beside the arrow.
        public var note: String?
        public var location: SourceLocation

        public init(
            from: String? = nil, to: String? = nil, frame: MessageRef? = nil, label: String? = nil, note: String? = nil, location: SourceLocation
        ) {
            self.from = from
            self.to = to
            self.frame = frame
            self.label = label
            self.note = note
            self.location = location
        }
    }

    public var name: String
    public var title: String
    public var description: String?
    /// Participants left to right; by default `client` and `server`.
    public var participants: [String]
    public var steps: [Step]
    public var location: SourceLocation

    public init(name: String, title: String, description: String? = nil, participants: [String], steps: [Step], location: SourceLocation) {
        self.name = name
        self.title = title
        self.description = description
        self.participants = participants
        self.steps = steps
        self.location = location
    }
}
