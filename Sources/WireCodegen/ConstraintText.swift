import WireSpec

/// Constraints in words, one phrase per constraint, with Markdown code spans: the published
/// reference and the generated doc comments both describe constraints with these phrases.
enum ConstraintText {
    /// `always `1``, `format uuidv4`, `not empty`, `≤ 64 UTF-8 bytes`, `≥ 1.05`, ...
    static func phrases(_ c: Constraints) -> [String] {
        var parts: [String] = []
        if let value = c.const { parts.append("always `\(value)`") }
        if let format = c.format { parts.append("format \(format.rawValue)") }
        if let value = c.prefix { parts.append("starts with `\(value)`") }
        if let value = c.pattern { parts.append("matches `\(value)`") }
        if let value = c.minLength { parts.append(value == 1 ? "not empty" : "≥ \(value) characters") }
        if let value = c.maxLength { parts.append("≤ \(value) characters") }
        if let value = c.minBytes { parts.append("≥ \(value) UTF-8 bytes") }
        if let value = c.maxBytes { parts.append("≤ \(value) UTF-8 bytes") }
        if c.notBlank { parts.append("not blank") }
        if let value = c.maxDecodedBytes { parts.append("≤ \(value) bytes decoded") }
        if let value = c.minimum { parts.append("≥ \(NumberText.compact(value))") }
        if let value = c.maximum { parts.append("≤ \(NumberText.compact(value))") }
        if let value = c.minItems { parts.append("≥ \(value) items") }
        if let value = c.maxItems { parts.append("≤ \(value) items") }
        return parts
    }
}
