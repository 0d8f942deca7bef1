import WireSpec

/// Renders the reference as one self-contained HTML page: inline CSS, no scripts, no fetched
/// fonts or images, a sidebar index, light and dark mode, a print layout, and sequence diagrams as
/// inline SVG.
enum HTMLRenderer {
    static func render(_ blocks: [DocBlock], title: String) -> String {
        var body: [String] = []
        for block in blocks { body.append(render(block)) }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <style>
            \(css)
            </style>
            </head>
            <body>
            <nav class="sidebar" aria-label="Contents">
            \(sidebar(blocks))
            </nav>
            <main>
            \(body.joined(separator: "\n"))
            </main>
            </body>
            </html>

            """
    }

    private static func sidebar(_ blocks: [DocBlock]) -> String {
        var lines = ["<p class=\"sidebar-title\"><a href=\"#top\">Contents</a></p>", "<ul>"]
        var open = false
        for block in blocks {
            guard case .heading(let level, let text, let anchor) = block, level == 2 || level == 3 else { continue }
            if level == 2 {
                if open { lines.append("</ul></li>") }
                lines.append("<li><a href=\"#\(anchor)\">\(inline(text))</a><ul>")
                open = true
            } else if open {
                lines.append("<li><a href=\"#\(anchor)\">\(inline(text))</a></li>")
            }
        }
        if open { lines.append("</ul></li>") }
        lines.append("</ul>")
        return lines.joined(separator: "\n")
    }

    private static func render(_ block: DocBlock) -> String {
        switch block {
        case .heading(let level, let text, let anchor):
            return
                "<h\(level) id=\"\(anchor)\">\(inline(text)) <a class=\"anchor\" href=\"#\(anchor)\" aria-label=\"Link to this "
                + "section\">#</a></h\(level)>"
        case .paragraph(let text):
            return "<p>\(inline(text))</p>"
        case .bullets(let items):
            return "<ul>\n" + items.map { "<li>\(inline($0))</li>" }.joined(separator: "\n") + "\n</ul>"
        case .code(_, let text):
            return "<pre><code>\(escape(text))</code></pre>"
        case .table(let headers, let rows, let anchors):
            var lines = [
                "<div class=\"table\"><table>", "<thead><tr>" + headers.map { "<th>\(inline($0))</th>" }.joined() + "</tr></thead>", "<tbody>",
            ]
            for (index, row) in rows.enumerated() {
                let id = anchors[index].map { " id=\"\($0)\"" } ?? ""
                lines.append("<tr\(id)>" + row.map { "<td>\(inline($0))</td>" }.joined() + "</tr>")
            }
            lines.append("</tbody></table></div>")
            return lines.joined(separator: "\n")
        case .flow(let flow):
            return "<figure class=\"flow\">\(SequenceDiagramSVG.render(flow))<figcaption>\(escape(flow.title))</figcaption></figure>"
        }
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Inline Markdown used by the document: `code`, [text](#anchor) and **bold**.
    static func inline(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let index = rest.firstIndex(where: { $0 == "`" || $0 == "[" || $0 == "*" }) {
            out += escape(String(rest[..<index]))
            rest = rest[index...]
            if rest.hasPrefix("`"), let end = rest.dropFirst().firstIndex(of: "`") {
                out += "<code>" + escape(String(rest[rest.index(after: rest.startIndex)..<end])) + "</code>"
                rest = rest[rest.index(after: end)...]
            } else if rest.hasPrefix("["), let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].hasPrefix("("),
                let end = rest[close...].firstIndex(of: ")")
            {
                let label = String(rest[rest.index(after: rest.startIndex)..<close])
                let target = String(rest[rest.index(close, offsetBy: 2)..<end])
                out += "<a href=\"\(escape(target))\">\(inline(label))</a>"
                rest = rest[rest.index(after: end)...]
            } else if rest.hasPrefix("**"), let end = rest.dropFirst(2).range(of: "**") {
                out += "<strong>" + inline(String(rest[rest.index(rest.startIndex, offsetBy: 2)..<end.lowerBound])) + "</strong>"
                rest = rest[end.upperBound...]
            } else {
                out += escape(String(rest.prefix(1)))
                rest = rest.dropFirst()
            }
        }
        return out + escape(String(rest))
    }

    static let css = """
        :root { --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --accent: #0969da; --code-bg: #f6f8fa; --side-bg: #f6f8fa; \
        --note-bg: #fff8c5; }
        @media (prefers-color-scheme: dark) {
          :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --accent: #4493f8; --code-bg: #151b23; --side-bg: #010409; \
        --note-bg: #3b2f00; }
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.55 -apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, \
        sans-serif; }
        .sidebar { position: fixed; top: 0; bottom: 0; left: 0; width: 270px; overflow-y: auto; padding: 16px 12px; background: var(--side-bg); \
        border-right: 1px solid var(--line); font-size: 13px; }
        .sidebar ul { list-style: none; padding-left: 0; margin: 0; }
        .sidebar ul ul { padding-left: 12px; margin-bottom: 6px; }
        .sidebar a { color: var(--fg); text-decoration: none; display: block; padding: 1px 4px; border-radius: 4px; }
        .sidebar a:hover { background: var(--line); }
        .sidebar-title { font-weight: 600; margin: 0 0 8px; }
        main { margin-left: 270px; padding: 24px 40px 80px; max-width: 1180px; }
        h1 { font-size: 2em; border-bottom: 1px solid var(--line); padding-bottom: .3em; }
        h2 { font-size: 1.5em; border-bottom: 1px solid var(--line); padding-bottom: .3em; margin-top: 2em; }
        h3 { font-size: 1.2em; margin-top: 1.6em; }
        h1, h2, h3 { scroll-margin-top: 12px; }
        a { color: var(--accent); }
        a.anchor { visibility: hidden; text-decoration: none; font-weight: normal; color: var(--muted); }
        h1:hover a.anchor, h2:hover a.anchor, h3:hover a.anchor { visibility: visible; }
        code { font: 0.9em ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code-bg); padding: .1em .3em; \
        border-radius: 4px; }
        pre { background: var(--code-bg); padding: 12px 16px; border-radius: 6px; overflow-x: auto; }
        pre code { background: none; padding: 0; white-space: pre-wrap; word-break: break-all; }
        .table { overflow-x: auto; }
        table { border-collapse: collapse; margin: 12px 0; font-size: 14px; }
        th, td { border: 1px solid var(--line); padding: 6px 10px; text-align: left; vertical-align: top; }
        th { background: var(--code-bg); }
        tr:target, h3:target { background: var(--note-bg); }
        figure.flow { margin: 16px 0; }
        figure.flow svg { max-width: 100%; height: auto; }
        figcaption { color: var(--muted); font-size: 13px; }
        .seq-box { fill: var(--code-bg); stroke: var(--line); }
        .seq-line { stroke: var(--line); stroke-dasharray: 4 4; }
        .seq-arrow { stroke: var(--fg); fill: none; }
        .seq-head { fill: var(--fg); }
        .seq-text { fill: var(--fg); font: 13px -apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif; }
        .seq-label { fill: var(--fg); font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
        .seq-note { fill: var(--note-bg); stroke: var(--line); }
        @media (max-width: 800px) { .sidebar { position: static; width: auto; border-right: none; } main { margin-left: 0; padding: 16px; } }
        @media print {
          .sidebar, a.anchor { display: none; }
          main { margin: 0; max-width: none; padding: 0; }
          body { background: #fff; color: #000; font-size: 11pt; }
          a { color: #000; text-decoration: none; }
          h2, h3 { break-after: avoid; }
          table, pre, figure { break-inside: avoid; }
        }
        """
}

/// Draws a flow as an SVG sequence diagram: participants as boxes with lifelines, frames as arrows, notes as boxes.
enum SequenceDiagramSVG {
    static func render(_ flow: Flow) -> String {
        let spacing = 260.0
        let margin = 130.0
        let top = 20.0
        let headerHeight = 34.0
        let rowHeight = 40.0
        let width = margin * 2 + spacing * Double(max(flow.participants.count - 1, 1))
        func x(_ name: String?) -> Double {
            let index = name.flatMap { flow.participants.firstIndex(of: $0) } ?? 0
            return margin + spacing * Double(index)
        }
        var rows: [String] = []
        var y = top + headerHeight + 26
        for step in flow.steps {
            if let from = step.from, let to = step.to {
                let x1 = x(from)
                let x2 = x(to)
                let direction = x2 >= x1 ? 1.0 : -1.0
                let label = HTMLRenderer.escape(step.label ?? step.frame?.tag ?? "")
                rows.append("<text class=\"seq-label\" x=\"\(fmt((x1 + x2) / 2))\" y=\"\(fmt(y - 7))\" text-anchor=\"middle\">\(label)</text>")
                rows.append(
                    "<line class=\"seq-arrow\" x1=\"\(fmt(x1))\" y1=\"\(fmt(y))\" x2=\"\(fmt(x2 - direction * 9))\" y2=\"\(fmt(y))\" "
                        + "stroke-width=\"1.5\"/>"
                )
                rows.append(
                    "<path class=\"seq-head\" d=\"M\(fmt(x2)) \(fmt(y)) L\(fmt(x2 - direction * 10)) \(fmt(y - 5)) L\(fmt(x2 - direction * 10)) "
                        + "\(fmt(y + 5)) Z\"/>"
                )
                y += rowHeight
            }
            if let note = step.note {
                let lines = wrap(note, width: Int((width - 60) / 7.2))
                let height = Double(lines.count) * 17 + 12
                rows.append(
                    "<rect class=\"seq-note\" x=\"30\" y=\"\(fmt(y - 18))\" width=\"\(fmt(width - 60))\" height=\"\(fmt(height))\" rx=\"4\"/>")
                for (index, line) in lines.enumerated() {
                    rows.append(
                        "<text class=\"seq-text\" x=\"\(fmt(width / 2))\" y=\"\(fmt(y + Double(index) * 17))\" "
                            + "text-anchor=\"middle\">\(HTMLRenderer.escape(line))</text>"
                    )
                }
                y += height + 14
            }
        }
        let height = y + 4
        var parts = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(fmt(width)) \(fmt(height))\" width=\"\(fmt(width))\" "
                + "height=\"\(fmt(height))\" role=\"img\" aria-label=\"\(HTMLRenderer.escape(flow.title))\">"
        ]
        for participant in flow.participants {
            let center = x(participant)
            parts.append(
                "<line class=\"seq-line\" x1=\"\(fmt(center))\" y1=\"\(fmt(top + headerHeight))\" x2=\"\(fmt(center))\" y2=\"\(fmt(height - 2))\"/>")
            parts.append(
                "<rect class=\"seq-box\" x=\"\(fmt(center - 100))\" y=\"\(fmt(top))\" width=\"200\" height=\"\(fmt(headerHeight))\" rx=\"6\"/>")
            parts.append(
                "<text class=\"seq-text\" x=\"\(fmt(center))\" y=\"\(fmt(top + 22))\" text-anchor=\"middle\" "
                    + "font-weight=\"600\">\(HTMLRenderer.escape(participant))</text>"
            )
        }
        parts += rows
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    private static func fmt(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }

    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty, current.count + word.count + 1 > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
