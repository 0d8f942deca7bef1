import WireSpec

/// The protocol reference as format-neutral blocks; Markdown and HTML renderers draw the same
/// blocks, so both formats always carry the same content.
///
/// Inline text may hold `code spans` and `[links](#anchor)`.
enum DocBlock: Equatable {
    case heading(level: Int, text: String, anchor: String)
    case paragraph(String)
    case table(headers: [String], rows: [[String]], anchors: [String?])
    case code(language: String, text: String)
    case bullets([String])
    case flow(Flow)
}

/// Anchors shared by both formats.
enum DocAnchor {
    static func message(_ direction: Direction, _ tag: String) -> String { "\(direction.rawValue)-\(slug(tag))" }
    static func field(_ owner: String, _ field: String) -> String { "\(owner)-\(slug(field))" }
    static func type(_ name: String) -> String { "type-\(slug(name))" }
    static func error(_ code: String) -> String { "error-\(slug(code))" }
    static func rateLimit(_ name: String) -> String { "rate-limit-\(slug(name))" }
    static func endpoint(_ name: String) -> String { "endpoint-\(slug(name))" }
    static func constant(_ name: String) -> String { "constant-\(slug(name))" }
    static func flow(_ name: String) -> String { "flow-\(slug(name))" }

    static func slug(_ text: String) -> String {
        String(text.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
    }
}
