import WireSpec

/// Publishes a spec as a protocol reference in Markdown or HTML.
public enum DocsGenerator {
    public enum Format: String, Sendable, CaseIterable {
        case markdown
        case html
    }

    /// A changelog section for a team about to upgrade: what changed since an earlier version,
    /// sorted by whom it breaks.
    public struct Changelog: Sendable {
        /// Whom a list of changes concerns.
        public enum Reader: Sendable, Hashable, CaseIterable {
            /// Changes that break clients written to the earlier version.
            case oldClients
            /// Changes that break providers written to the earlier version.
            case oldServers
            /// Changes that may break either, depending on what a peer does.
            case eitherMayBreak
            /// Changes that break neither.
            case neither
        }

        /// What the changes are measured from, e.g. `main:Spec/clawline.yaml`.
        public var since: String
        /// `3 breaking, 1 warning, 4 info`.
        public var summary: String
        /// The finding that the version stayed the same across breaking changes, if it did.
        public var versionFinding: String?
        /// One line per change, by whom it concerns (a change that breaks both sides is in both lists).
        public var changes: [Reader: [String]]
        /// How many descriptions changed (not listed).
        public var descriptionsChanged: Int

        public init(
            since: String, summary: String, versionFinding: String? = nil, changes: [Reader: [String]] = [:], descriptionsChanged: Int = 0
        ) {
            self.since = since
            self.summary = summary
            self.versionFinding = versionFinding
            self.changes = changes
            self.descriptionsChanged = descriptionsChanged
        }

        private func title(_ reader: Reader) -> (text: String, anchor: String) {
            switch reader {
            case .oldClients: return ("What breaks clients written to \(since)", "changelog-clients")
            case .oldServers: return ("What breaks providers written to \(since)", "changelog-providers")
            case .eitherMayBreak: return ("What may break, depending on the peer", "changelog-may-break")
            case .neither: return ("Compatible changes", "changelog-compatible")
            }
        }

        /// The section's blocks: a summary, then one list per kind of reader.
        func blocks() -> [DocBlock] {
            var blocks: [DocBlock] = [.heading(level: 2, text: "Changes since \(since)", anchor: "changelog")]
            guard versionFinding != nil || changes.values.contains(where: { !$0.isEmpty }) || descriptionsChanged > 0 else {
                return blocks + [.paragraph("No changes.")]
            }
            blocks.append(.paragraph(summary + "."))
            if let versionFinding { blocks.append(.paragraph("**\(versionFinding).**")) }
            for reader in Reader.allCases {
                guard let entries = changes[reader], !entries.isEmpty else { continue }
                let heading = title(reader)
                blocks += [.heading(level: 3, text: heading.text, anchor: heading.anchor), .bullets(entries)]
            }
            if descriptionsChanged > 0 {
                blocks.append(.paragraph("\(descriptionsChanged) description\(descriptionsChanged == 1 ? "" : "s") changed as well."))
            }
            return blocks
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
        if let changelog { blocks += changelog.blocks() }
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
