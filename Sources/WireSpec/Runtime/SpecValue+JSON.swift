import WireRuntime

extension JSONValue {
    /// The JSON value of a spec literal.
    public init(spec value: SpecValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .integer(let number): self = .integer(number)
        case .number(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(JSONValue.init(spec:)))
        case .object(let members): self = .object(Dictionary(members.map { ($0.key, JSONValue(spec: $0.value)) }, uniquingKeysWith: { $1 }))
        }
    }
}

extension SpecValue {
    /// A parsed JSON value as a spec value, object keys sorted.
    public init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .integer(let number): self = .integer(number)
        case .number(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .array(let items): self = .array(items.map(SpecValue.init))
        case .object(let members): self = .object(members.keys.sorted().map { SpecValue.Member(key: $0, value: SpecValue(members[$0]!)) })
        }
    }
}
