import WireRuntime
import WireSpec

/// A spec document being written: an ordered tree of mappings, lists and scalars, written as
/// block YAML in the order it was built (the canonical layout: protocol, transport, validation,
/// errors, types, messages).
indirect enum SpecYAML: Sendable, Equatable {
    case string(String)
    /// A scalar written as it is (numbers, booleans, `null`).
    case literal(String)
    case mapping([(String, SpecYAML)])
    case list([SpecYAML])

    static func == (lhs: SpecYAML, rhs: SpecYAML) -> Bool { lhs.text(indent: 0) == rhs.text(indent: 0) }

    /// A JSON value from the document (an example), as YAML.
    init(_ node: YAMLNode) {
        switch node.kind {
        case .scalar(let text, let plain):
            if plain, YAMLScalar.resolve(text) != .string(text) {
                self = .literal(text)
            } else {
                self = .string(text)
            }
        case .sequence(let items): self = .list(items.map(SpecYAML.init))
        case .mapping(let entries): self = .mapping(entries.map { ($0.key, SpecYAML($0.value)) })
        }
    }

    /// The value of `key` in a mapping.
    subscript(key: String) -> SpecYAML? {
        guard case .mapping(let entries) = self else { return nil }
        return entries.first { $0.0 == key }?.1
    }

    /// The document's text.
    var document: String { text(indent: 0) + "\n" }

    private func text(indent: Int) -> String {
        let pad = String(repeating: " ", count: indent)
        switch self {
        case .string(let text): return Self.quoted(text)
        case .literal(let text): return text
        case .mapping(let entries):
            if entries.isEmpty { return "{}" }
            return entries.map { key, value in
                let name = Self.quoted(key)
                switch value {
                case .mapping(let inner) where !inner.isEmpty: return "\(pad)\(name):\n\(value.text(indent: indent + 2))"
                case .list(let inner) where !inner.isEmpty: return "\(pad)\(name):\n\(value.text(indent: indent + 2))"
                default: return "\(pad)\(name): \(value.text(indent: indent + 2))"
                }
            }.joined(separator: "\n")
        case .list(let items):
            if items.isEmpty { return "[]" }
            return items.map { item in
                guard item.isNonEmptyCollection else { return "\(pad)- \(item.text(indent: indent + 2))" }
                // The item's first line follows the dash; the rest keep their indentation.
                return "\(pad)- " + item.text(indent: indent + 2).dropFirst(indent + 2)
            }.joined(separator: "\n")
        }
    }

    private var isNonEmptyCollection: Bool {
        switch self {
        case .mapping(let entries): return !entries.isEmpty
        case .list(let items): return !items.isEmpty
        default: return false
        }
    }

    /// `text` plain when YAML reads it back as the same string, else double-quoted.
    static func quoted(_ text: String) -> String {
        let plainSafe =
            !text.isEmpty && YAMLScalar.resolve(text) == .string(text)
            && text.range(of: #"^[A-Za-z_/$][A-Za-z0-9_ ./<>()$+-]*$"#, options: .regularExpression) != nil && !text.hasSuffix(" ")
        if plainSafe { return text }
        // A JSON string is a YAML double-quoted scalar: the same escapes.
        return JSONWriter.string(.string(text))
    }
}
