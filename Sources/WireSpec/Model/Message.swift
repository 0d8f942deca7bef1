/// Which peer sends a frame.
public enum Direction: String, Sendable, Hashable, Encodable, CaseIterable, Comparable {
    /// From the client to the server.
    case client
    /// From the server to the client.
    case server

    /// The other peer.
    public var opposite: Direction { self == .client ? .server : .client }

    public static func < (lhs: Direction, rhs: Direction) -> Bool { lhs == .client && rhs == .server }
}

/// A message (frame) type of the protocol in one direction.
///
/// A message declared under `both:` appears once per direction in the model, with the same shape.
/// The same tag may have a different shape in each direction (Clawline's `message`).
public struct Message: Sendable, Hashable, Encodable {
    /// The value of the protocol's tag field (`type`) that identifies this message.
    public var tag: String
    /// Who sends it.
    public var direction: Direction
    /// Whether the spec declared it under `both:` (one shape in both directions).
    public var declaredForBoth: Bool
    /// An explicit type name for generated code, overriding the one derived from the tag.
    public var typeName: String?
    public var description: String?
    /// The message's fields (the tag field itself is implied and not listed).
    public var shape: ObjectShape
    /// How any violation of this message's field rules is answered, unless a field or rule says otherwise.
    public var violation: Answer?
    /// Example frames, each a complete JSON object including the tag.
    public var examples: [SpecValue]
    public var location: SourceLocation

    public init(
        tag: String, direction: Direction, declaredForBoth: Bool = false, typeName: String? = nil, description: String? = nil,
        shape: ObjectShape, violation: Answer? = nil, examples: [SpecValue] = [], location: SourceLocation
    ) {
        self.tag = tag
        self.direction = direction
        self.declaredForBoth = declaredForBoth
        self.typeName = typeName
        self.description = description
        self.shape = shape
        self.violation = violation
        self.examples = examples
        self.location = location
    }
}

/// A reference to a message, written `client message` or `server auth_result` in a spec.
public struct MessageRef: Sendable, Hashable, Encodable, CustomStringConvertible {
    public var direction: Direction
    public var tag: String
    public init(direction: Direction, tag: String) {
        self.direction = direction
        self.tag = tag
    }
    public var description: String { "\(direction.rawValue) \(tag)" }
}
