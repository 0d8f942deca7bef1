import WireSpec

/// Publishes a spec as a protocol reference in Markdown or HTML.
public enum DocsGenerator {
    public enum Format: String, Sendable, CaseIterable {
        case markdown
        case html
    }

    /// A changelog section: what changed since an earlier version, one row per change.
    public struct Changelog: Sendable {
        /// What the changes are measured from, e.g. `main:Spec/clawline.yaml`.
        public var since: String
        /// `3 breaking, 1 warning, 4 info`.
        public var summary: String
        /// Per change: what changed, its severity, the verdict for old clients and for old servers.
        public var rows: [[String]]

        public init(since: String, summary: String, rows: [[String]]) {
            self.since = since
            self.summary = summary
            self.rows = rows
        }
    }

    /// The reference of `spec`. `examples` maps messages to example frames (JSON text, ideally
    /// golden frames); messages without one fall back to the spec's first `examples` entry.
    /// `changelog`, when given, ends the reference with what changed since an earlier version.
    public static func document(
        for spec: ProtocolSpec, format: Format, examples: [MessageRef: String] = [:], changelog: Changelog? = nil
    ) -> String {
        var allExamples = examples
        for message in spec.messages where allExamples[MessageRef(direction: message.direction, tag: message.tag)] == nil {
            if let example = message.examples.first {
                allExamples[MessageRef(direction: message.direction, tag: message.tag)] = PrettyJSON.render(example).trimmingTrailingNewlines()
            }
        }
        var blocks = ProtocolDocument(spec: spec, examples: allExamples).blocks()
        if let changelog {
            blocks.append(.heading(level: 2, text: "Changes since \(changelog.since)", anchor: "changelog"))
            blocks.append(.paragraph(changelog.rows.isEmpty ? "No changes." : changelog.summary + "."))
            if !changelog.rows.isEmpty {
                blocks.append(
                    .table(
                        headers: ["Change", "Severity", "Old clients, new server", "Old servers, new client"], rows: changelog.rows,
                        anchors: changelog.rows.map { _ in nil }))
            }
        }
        switch format {
        case .markdown: return MarkdownRenderer.render(blocks)
        case .html: return HTMLRenderer.render(blocks, title: "\(spec.title) protocol v\(spec.version)")
        }
    }

    /// The file name of a format's output: `<name>.md` or `<name>.html`.
    public static func fileName(for spec: ProtocolSpec, format: Format) -> String {
        "\(spec.name).\(format == .markdown ? "md" : "html")"
    }
}

extension DocsGenerator {
    /// A frame as indented JSON for an example, with the tag field first and other keys sorted.
    public static func exampleText(_ frame: SpecValue, tagField: String) -> String {
        guard case .object(let members) = frame else { return PrettyJSON.render(frame).trimmingTrailingNewlines() }
        let ordered = members.filter { $0.key == tagField } + members.filter { $0.key != tagField }.sorted { $0.key < $1.key }
        return PrettyJSON.render(.object(ordered)).trimmingTrailingNewlines()
    }
}
