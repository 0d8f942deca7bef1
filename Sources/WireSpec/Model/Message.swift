import WireRuntime

/// Which peer sends a frame: the runtime's direction.
public typealias Direction = FrameDirection

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
    /// The message's fields (the tag field itself is implied and not listed). Empty for a message
    /// whose body is a union (`variants`).
    public var shape: ObjectShape
    /// For a message whose fields depend on one field (`pair_result` on `success`): that field and
    /// the object type each of its values selects. The wire form is one flat object either way.
    public var variants: UnionType?
    /// How any violation of this message's field rules is answered, unless a field or rule says otherwise.
    public var violation: Answer?
    /// Example frames, each a complete JSON object including the tag.
    public var examples: [SpecValue]
    public var location: SourceLocation

    public init(
        tag: String, direction: Direction, declaredForBoth: Bool = false, typeName: String? = nil, description: String? = nil,
        shape: ObjectShape, variants: UnionType? = nil, violation: Answer? = nil, examples: [SpecValue] = [], location: SourceLocation
    ) {
        self.tag = tag
        self.direction = direction
        self.declaredForBoth = declaredForBoth
        self.typeName = typeName
        self.description = description
        self.shape = shape
        self.variants = variants
        self.violation = violation
        self.examples = examples
        self.location = location
    }
}

extension Message {
    /// Every field a frame of this message may carry, as session rules and docs name them: the
    /// message's own fields, or for a union message its tag (required) and the fields of its case
    /// types (required only when every case requires them). `types` are the spec's named types.
    public func allFields(types: [NamedType]) -> [Field] {
        guard let variants else { return shape.fields }
        let tagType: TypeRef = variants.hasBooleanTag ? .boolean : .string
        var fields = [Field(name: variants.tag, description: "Selects the case.", type: tagType, location: location)]
        let shapes = variants.cases.compactMap { unionCase -> ObjectShape? in
            guard case .object(let shape)? = types.first(where: { $0.name == unionCase.type })?.kind else { return nil }
            return shape
        }
        for shape in shapes {
            for field in shape.fields where !fields.contains(where: { $0.name == field.name }) {
                var merged = field
                merged.required = field.required && shapes.allSatisfy { $0.field(named: field.name)?.required == true }
                fields.append(merged)
            }
        }
        return fields
    }
}

/// A message of one direction, as session rules and rate limits name it: the runtime's frame key.
public typealias MessageRef = FrameKey
