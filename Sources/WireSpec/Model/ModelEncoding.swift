// Encodings of the model's enums for `wire lint --dump json`: each case is an object with a
// `kind` key and its payload's keys, so other tools read them without Swift's `_0` keys.

private struct KindKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private func encodeKind(_ kind: String, payload: (any Encodable)?, to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: KindKey.self)
    try container.encode(kind, forKey: KindKey("kind"))
    try payload?.encode(to: encoder)
}

extension TypeRef {
    /// Encoded as its spec spelling, e.g. `"array<Attachment>"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension NamedType.Kind {
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let shape): try encodeKind("object", payload: shape, to: encoder)
        case .enumeration(let values): try encodeKind("enum", payload: values, to: encoder)
        case .union(let union): try encodeKind("union", payload: union, to: encoder)
        case .oneOf(let oneOf): try encodeKind("oneOf", payload: oneOf, to: encoder)
        case .alias(let alias): try encodeKind("alias", payload: alias, to: encoder)
        }
    }
}

extension Rule {
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .conditional(let rule): try encodeKind("conditional", payload: rule, to: encoder)
        case .byteBudget(let budget): try encodeKind("byteBudget", payload: budget, to: encoder)
        }
    }
}

extension RateLimit.Counted {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: KindKey.self)
        switch self {
        case .frames(let frames):
            try container.encode("frames", forKey: KindKey("kind"))
            try container.encode(frames, forKey: KindKey("frames"))
        case .violations(let codes):
            try container.encode("violations", forKey: KindKey("kind"))
            try container.encode(codes, forKey: KindKey("errorCodes"))
        }
    }
}

extension Endpoint.Body {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: KindKey.self)
        switch self {
        case .json(let type):
            try container.encode("json", forKey: KindKey("kind"))
            try container.encode(type, forKey: KindKey("type"))
        case .multipart(let parts):
            try container.encode("multipart", forKey: KindKey("kind"))
            try container.encode(parts, forKey: KindKey("parts"))
        case .binary(let contentType):
            try container.encode("binary", forKey: KindKey("kind"))
            try container.encodeIfPresent(contentType, forKey: KindKey("contentType"))
        }
    }
}
