import WireSpec

/// Renders the reference as GitHub-flavoured Markdown, sequence diagrams as Mermaid blocks.
enum MarkdownRenderer {
    static func render(_ blocks: [DocBlock]) -> String {
        var out: [String] = []
        var tocWritten = false
        for block in blocks {
            if case .heading(2, _, _) = block, !tocWritten {
                tocWritten = true
                out.append(
                    "**Contents:** "
                        + blocks.compactMap { block -> String? in
                            guard case .heading(2, let text, let anchor) = block else { return nil }
                            return "[\(text)](#\(anchor))"
                        }.joined(separator: " · "))
            }
            out.append(render(block))
        }
        return out.joined(separator: "\n\n") + "\n"
    }

    private static func render(_ block: DocBlock) -> String {
        switch block {
        case .heading(let level, let text, let anchor):
            return "<a id=\"\(anchor)\"></a>\n" + String(repeating: "#", count: level) + " " + text
        case .paragraph(let text):
            return text
        case .bullets(let items):
            return items.map { "- " + $0 }.joined(separator: "\n")
        case .code(let language, let text):
            return "```\(language)\n\(text)\n```"
        case .table(let headers, let rows, let anchors):
            var lines = ["| " + headers.map(cell).joined(separator: " | ") + " |", "|" + headers.map { _ in " --- |" }.joined()]
            for (index, row) in rows.enumerated() {
                var cells = row.map(cell)
                if let anchor = anchors[index], !cells.isEmpty { cells[0] = "<a id=\"\(anchor)\"></a>" + cells[0] }
                lines.append("| " + cells.joined(separator: " | ") + " |")
            }
            return lines.joined(separator: "\n")
        case .flow(let flow):
            return mermaid(flow)
        }
    }

    private static func cell(_ text: String) -> String {
        text.isEmpty ? " " : text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }

    private static func mermaid(_ flow: Flow) -> String {
        var lines = ["```mermaid", "sequenceDiagram"]
        let ids = Dictionary(uniqueKeysWithValues: flow.participants.enumerated().map { ($0.element, "P\($0.offset)") })
        for (index, participant) in flow.participants.enumerated() {
            lines.append("    participant P\(index) as \(participant)")
        }
        for step in flow.steps {
            let note = step.note.map { $0.replacingOccurrences(of: ";", with: ",").replacingOccurrences(of: "#", with: "") }
            if let from = step.from, let to = step.to, let fromID = ids[from], let toID = ids[to] {
                let label = (step.label ?? step.frame?.tag ?? "").replacingOccurrences(of: ";", with: ",")
                lines.append("    \(fromID)->>\(toID): \(label)")
                if let note { lines.append("    Note over \(fromID),\(toID): \(note)") }
            } else if let note {
                lines.append("    Note over P0,P\(flow.participants.count - 1): \(note)")
            }
        }
        lines.append("```")
        return lines.joined(separator: "\n")
    }
}
