import WireRuntime
import WireSpec
import WireValidator

/// The document's examples, checked against the imported spec: an example the spec accepts goes
/// into it; one it refuses stays out, with a diagnostic at the example's line saying why.
struct ExampleCheck {
    /// One example of one frame.
    struct Site {
        var direction: Direction
        var tag: String
        var example: AsyncAPISource.Located
    }

    /// The examples that pass, by direction and tag, and a diagnostic per one that does not.
    static func check(_ sites: [Site], against spec: ProtocolSpec) -> (passed: [String: [SpecYAML]], diagnostics: [Diagnostic]) {
        let validator = FrameValidator(spec: spec)
        var passed: [String: [SpecYAML]] = [:]
        var diagnostics: [Diagnostic] = []
        for site in sites {
            let text = JSONWriter.string(JSONValue(site.example.node))
            switch validator.check(Array(text.utf8), direction: site.direction) {
            case .checked(_, let issues) where issues.errors.isEmpty:
                passed["\(site.direction.rawValue) \(site.tag)", default: []].append(SpecYAML(site.example.node))
            case .checked(_, let issues):
                let found = issues.errors.map { "\($0.path): \($0.message)" }.joined(separator: "; ")
                diagnostics.append(
                    Diagnostic(
                        .warning, "this example of '\(site.tag)' breaks its own schema and is left out of the spec: \(found)",
                        at: site.example.location))
            case .notJSON, .notAFrame, .unknownType:
                diagnostics.append(
                    Diagnostic(.warning, "this example of '\(site.tag)' is not a frame the spec reads; it is left out", at: site.example.location))
            }
        }
        return (passed, diagnostics)
    }
}

extension JSONValue {
    /// A JSON value from a YAML node: plain scalars by the YAML core schema, quoted ones as strings.
    init(_ node: YAMLNode) {
        switch node.kind {
        case .scalar(let text, let plain):
            guard plain else {
                self = .string(text)
                return
            }
            switch YAMLScalar.resolve(text) {
            case .null: self = .null
            case .bool(let flag): self = .bool(flag)
            case .integer(let number): self = .integer(number)
            case .number(let number): self = .number(number)
            case .string(let string): self = .string(string)
            }
        case .sequence(let items): self = .array(items.map(JSONValue.init))
        case .mapping(let entries): self = .object(Dictionary(entries.map { ($0.key, JSONValue($0.value)) }, uniquingKeysWith: { first, _ in first }))
        }
    }
}
