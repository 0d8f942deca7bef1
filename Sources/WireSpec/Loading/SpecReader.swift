import Foundation

/// Reads located YAML nodes into the model, collecting every problem instead of stopping at the first.
///
/// Each `read…` function reports what is wrong with its node and returns `nil` (or a best-effort
/// value) so reading goes on and one run reports all problems of a file.
final class SpecReader {
    private(set) var diagnostics: [Diagnostic] = []
    let file: String
    /// The named types read so far, for rules that look into a union message's case types.
    var readTypes: [NamedType] = []

    init(file: String) {
        self.file = file
    }

    func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(.error, message, at: location))
    }

    func warning(_ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(.warning, message, at: location))
    }

    // MARK: Mappings

    /// A mapping whose keys were checked against the keys its context allows.
    struct Mapping {
        let node: YAMLNode
        let entries: [YAMLNode.Entry]

        subscript(key: String) -> YAMLNode? { entries.first { $0.key == key }?.value }

        func keyLocation(_ key: String) -> SourceLocation? { entries.first { $0.key == key }?.keyLocation }

        func has(_ key: String) -> Bool { entries.contains { $0.key == key } }
    }

    /// Up to how many keys a mapping's duplicates are found by looking back at the keys before
    /// each; a larger mapping (a spec's types or messages) keeps a table of them.
    static let keysLookedBackAt = 16

    /// Reads a mapping; reports a wrong kind, unknown keys (with a suggestion) and duplicate keys.
    func mapping(_ node: YAMLNode, in context: String, allowedKeys: [String]) -> Mapping? {
        guard let entries = entries(node, in: context) else { return nil }
        // A list of a few keys is searched faster than a set of them is built, mapping after mapping.
        for entry in entries where !allowedKeys.contains(entry.key) {
            var hint = Suggestions.hint(for: entry.key, in: allowedKeys)
            if hint.isEmpty, entry.key.contains(" ") {
                hint = " (if this is the rest of a text, quote the text: inside {…} a comma ends a value)"
            }
            error("unknown key '\(entry.key)' in \(context)\(hint)", at: entry.keyLocation)
        }
        return Mapping(node: node, entries: entries)
    }

    /// Reads a mapping whose keys are names chosen by the spec's author (types, fields, messages).
    ///
    /// `duplicate` words the error for a key given twice; by default "duplicate key 'x' in <context>".
    func entries(_ node: YAMLNode, in context: String, duplicate: ((String) -> String)? = nil) -> [YAMLNode.Entry]? {
        guard case .mapping(let entries) = node.kind else {
            if case .scalar(let text, true) = node.kind, YAMLScalar.isNull(text) { return [] }
            error("expected a mapping for \(context), found \(node.kindDescription)", at: node.location)
            return nil
        }
        // Most mappings have a few keys: an earlier one is found by looking back, with no table.
        var seen: [String: SourceLocation]? = entries.count > Self.keysLookedBackAt ? [:] : nil
        var unique: [YAMLNode.Entry] = []
        unique.reserveCapacity(entries.count)
        for entry in entries {
            let first = seen != nil ? seen?[entry.key] : unique.first { $0.key == entry.key }?.keyLocation
            if let first {
                let what = duplicate?(entry.key) ?? "duplicate key '\(entry.key)' in \(context)"
                error("\(what) (first defined at line \(first.line))", at: entry.keyLocation)
                continue
            }
            seen?[entry.key] = entry.keyLocation
            unique.append(entry)
        }
        return unique
    }

    /// Reports a key that must be present.
    func require(_ key: String, in mapping: Mapping, context: String) -> YAMLNode? {
        if let value = mapping[key] { return value }
        error("missing required key '\(key)' in \(context)", at: mapping.node.location)
        return nil
    }

    // MARK: Scalars

    /// A string scalar. Numbers and booleans written plain are accepted as their text.
    func string(_ node: YAMLNode, _ what: String) -> String? {
        guard case .scalar(let text, let plain) = node.kind, !(plain && YAMLScalar.isNull(text)) else {
            error("expected a string for \(what), found \(node.kindDescription)", at: node.location)
            return nil
        }
        return text
    }

    /// A non-empty name: letters, digits and underscores, starting with a letter.
    func identifier(_ node: YAMLNode, _ what: String) -> String? {
        guard let text = string(node, what) else { return nil }
        guard Self.isIdentifier(text) else {
            error("\(what) must be a name of letters, digits and '_' starting with a letter, found '\(text)'", at: node.location)
            return nil
        }
        return text
    }

    /// Whether `text` is a name: a letter, then letters, digits and `_`. A letter is what
    /// Foundation's `CharacterSet.letters` holds (Unicode's letters and marks) and a digit what
    /// `alphanumerics` adds (numbers), judged here from the scalars' general categories rather
    /// than with those sets, which set up CoreFoundation's tables on first use.
    static func isIdentifier(_ text: String) -> Bool {
        var scalars = text.unicodeScalars.makeIterator()
        guard let first = scalars.next(), isLetter(first) else { return false }
        while let scalar = scalars.next() {
            guard isLetter(scalar) || scalar == "_" || isNumber(scalar) else { return false }
        }
        return true
    }

    /// Whether a scalar is a letter or a mark (general categories L and M).
    private static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return UInt8(scalar.value).isASCIILetter }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark, .spacingMark,
            .enclosingMark:
            return true
        default: return false
        }
    }

    /// Whether a scalar is a number (general category N).
    private static func isNumber(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return UInt8(scalar.value).isASCIIDigit }
        switch scalar.properties.generalCategory {
        case .decimalNumber, .letterNumber, .otherNumber: return true
        default: return false
        }
    }

    /// An integer scalar.
    func integer(_ node: YAMLNode, _ what: String) -> Int? {
        if case .scalar(let text, true) = node.kind, case .integer(let value) = YAMLScalar.resolve(text) { return value }
        error("expected an integer for \(what), found \(node.kindDescription)", at: node.location)
        return nil
    }

    /// An integer that must be zero or more (sizes, lengths, counts).
    func nonNegativeInteger(_ node: YAMLNode, _ what: String) -> Int? {
        guard let value = integer(node, what) else { return nil }
        guard value >= 0 else {
            error("\(what) must be a non-negative integer, found \(value)", at: node.location)
            return nil
        }
        return value
    }

    /// An integer that must be one or more.
    func positiveInteger(_ node: YAMLNode, _ what: String) -> Int? {
        guard let value = integer(node, what) else { return nil }
        guard value > 0 else {
            error("\(what) must be a positive integer, found \(value)", at: node.location)
            return nil
        }
        return value
    }

    /// A number scalar (integer or decimal).
    func number(_ node: YAMLNode, _ what: String) -> Double? {
        if case .scalar(let text, true) = node.kind {
            switch YAMLScalar.resolve(text) {
            case .integer(let value): return Double(value)
            case .number(let value): return value
            default: break
            }
        }
        error("expected a number for \(what), found \(node.kindDescription)", at: node.location)
        return nil
    }

    /// A boolean scalar.
    func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        if case .scalar(let text, true) = node.kind, case .bool(let value) = YAMLScalar.resolve(text) { return value }
        error("expected true or false for \(what), found \(node.kindDescription)", at: node.location)
        return nil
    }

    /// One of a fixed set of words.
    func oneOf<T: RawRepresentable>(_ node: YAMLNode, _ what: String, _ type: T.Type, allowed: [T]) -> T? where T.RawValue == String {
        guard let text = string(node, what) else { return nil }
        if let value = T(rawValue: text), allowed.map(\.rawValue).contains(text) { return value }
        let names = allowed.map(\.rawValue)
        let list = names.map { "'\($0)'" }.joined(separator: ", ")
        error("\(what) must be one of \(list), found '\(text)'\(Suggestions.hint(for: text, in: names))", at: node.location)
        return nil
    }

    /// A list of strings; a single string is accepted as a list of one.
    func stringList(_ node: YAMLNode, _ what: String) -> [(String, SourceLocation)]? {
        switch node.kind {
        case .scalar:
            return string(node, what).map { [($0, node.location)] }
        case .sequence(let items):
            return items.compactMap { item in string(item, "an item of \(what)").map { ($0, item.location) } }
        case .mapping:
            error("expected a list of strings for \(what), found a mapping", at: node.location)
            return nil
        }
    }

    // MARK: Values

    /// Any YAML value as a JSON value; plain scalars follow the YAML 1.2 core schema.
    func value(_ node: YAMLNode) -> SpecValue {
        switch node.kind {
        case .scalar(let text, let plain):
            guard plain else { return .string(text) }
            switch YAMLScalar.resolve(text) {
            case .null: return .null
            case .bool(let value): return .bool(value)
            case .integer(let value): return .integer(value)
            case .number(let value): return .number(value)
            case .string(let value): return .string(value)
            }
        case .sequence(let items):
            return .array(items.map(value))
        case .mapping(let entries):
            return .object(entries.map { SpecValue.Member(key: $0.key, value: value($0.value)) })
        }
    }
}
