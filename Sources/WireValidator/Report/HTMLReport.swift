@_spi(Generated) import WireRuntime
import WireSpec

/// Renders a ``CaptureReport`` as one self-contained HTML page (`wire validate --html`): no
/// network, no external script or font; it opens from disk in any browser.
///
/// The summary and the list of findings are written as HTML; each session's timeline is drawn by
/// the page's script from the data embedded in it, when the session is opened. Sessions with
/// findings come first and open; the others are folded, so a capture of 200,000 frames opens
/// without drawing 200,000 rows.
public enum HTMLReport {
    /// The page for `report`, titled after `captures`, with the run's `summary`.
    public static func render(_ report: CaptureReport, summary: ValidationSummary, captures: [String], spec: ProtocolSpec) -> String {
        let ordered = report.sessions.enumerated().sorted { left, right in
            let (leftErrors, rightErrors) = (left.element.errorCount, right.element.errorCount)
            if (leftErrors > 0) != (rightErrors > 0) { return leftErrors > 0 }
            return left.offset < right.offset
        }.map(\.element)
        var page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        page += "<title>\(escape("wire validate: " + captures.joined(separator: ", ")))</title>\n"
        page += "<style>\n\(ReportAssets.css)</style>\n</head>\n<body>\n"
        page += "<header><h1>\(escape(captures.joined(separator: ", ")))</h1>"
        page += "<p class=\"spec\">checked against \(escape(spec.title)) (\(escape(spec.sourceFile)))</p></header>\n"
        page += summaryHTML(summary, report: report)
        page += controlsHTML(ordered)
        page += findingsHTML(ordered, report: report)
        page += "<main id=\"sessions\"></main>\n"
        page += "<script type=\"application/json\" id=\"report-data\">\(dataJSON(ordered))</script>\n"
        page += "<script>\n\(ReportAssets.script)</script>\n</body>\n</html>\n"
        return page
    }

    private static func summaryHTML(_ summary: ValidationSummary, report: CaptureReport) -> String {
        var html = "<section id=\"summary\"><h2>Summary</h2>\n"
        html += "<p class=\"counts\"><span id=\"count-sessions\">\(summary.sessions) sessions</span>, "
        html += "<span id=\"count-frames\">\(summary.frames) frames</span>, "
        html += "<span id=\"count-errors\">\(summary.errorCount) errors</span>, "
        html += "<span id=\"count-warnings\">\(summary.warningCount) warnings</span></p>\n"
        html += "<div class=\"tables\">" + table("Frames by type", summary.framesByType) + table("Errors by code", summary.errorsByCode)
        var byRule: [String: Int] = [:]
        for note in report.sessions.flatMap({ $0.frames.flatMap(\.notes) + $0.notes }) + report.captureNotes.map(\.note) {
            byRule[note.finding.rule, default: 0] += 1
        }
        html += table("Findings by rule", byRule) + "</div></section>\n"
        return html
    }

    private static func table(_ title: String, _ counts: [String: Int]) -> String {
        var html = "<table class=\"counts\"><caption>\(escape(title))</caption>"
        if counts.isEmpty { html += "<tr><td>none</td></tr>" }
        for (name, count) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
            html += "<tr><td>\(escape(name))</td><td class=\"n\">\(count)</td></tr>"
        }
        return html + "</table>"
    }

    private static func controlsHTML(_ sessions: [CaptureReport.Session]) -> String {
        let types = Set(sessions.flatMap { $0.frames.compactMap(\.type) }).sorted()
        var html = "<nav id=\"controls\"><button id=\"next-error\" type=\"button\">Next error</button> "
        html += "<label>Session <input id=\"filter-session\" type=\"search\" placeholder=\"id contains…\"></label> "
        html += "<label>Direction <select id=\"filter-direction\"><option value=\"\">both</option>"
        html += "<option value=\"client\">client</option><option value=\"server\">server</option></select></label> "
        html += "<label>Type <select id=\"filter-type\"><option value=\"\">any</option>"
        for type in types { html += "<option>\(escape(type))</option>" }
        return html + "</select></label> <span id=\"position\"></span></nav>\n"
    }

    private static func findingsHTML(_ sessions: [CaptureReport.Session], report: CaptureReport) -> String {
        var html = "<section id=\"findings\"><h2>Findings</h2><ol>\n"
        var any = false
        for (number, session) in sessions.enumerated() {
            for frame in session.frames {
                for note in frame.notes {
                    any = true
                    html += "<li class=\"\(note.finding.severity == .error ? "error" : "warning")\">"
                    html += "<a href=\"#f-\(number)-\(frame.index)\" data-session=\"\(number)\" data-frame=\"\(frame.index)\">"
                    html += "\(escape(session.id)) #\(frame.index)</a> " + noteHTML(note) + "</li>\n"
                }
            }
            for note in session.notes {
                any = true
                html += "<li class=\"\(note.finding.severity == .error ? "error" : "warning")\">\(escape(session.id)) (session) " + noteHTML(note)
                html += "</li>\n"
            }
        }
        for (file, line, note) in report.captureNotes {
            any = true
            html += "<li class=\"error\">\(escape(file))\(line.map { ":\($0)" } ?? "") " + noteHTML(note) + "</li>\n"
        }
        if !any { html += "<li class=\"none\">No findings: every frame and every session follows the spec.</li>\n" }
        return html + "</ol></section>\n"
    }

    private static func noteHTML(_ note: CaptureReport.Note) -> String {
        let finding = note.finding
        var html = "<span class=\"severity\">\(finding.severity.rawValue)</span> <span class=\"rule\">\(escape(finding.rule))</span> "
        html += "<code class=\"code\">\(escape(finding.code))</code> "
        if let path = finding.path, !path.components.isEmpty { html += "<code class=\"path\">\(escape(path.description))</code> " }
        html += "<span class=\"message\">\(escape(finding.message))</span>"
        if let location = note.specLocation { html += " <span class=\"where\">\(escape(location))</span>" }
        return html
    }

    /// The sessions as the page's script reads them.
    private static func dataJSON(_ sessions: [CaptureReport.Session]) -> String {
        let value = JSONValue.array(
            sessions.map { session in
                .object([
                    "id": .string(session.id), "file": .string(session.file), "errors": .integer(session.errorCount),
                    "notes": .array(session.notes.map(noteJSON)),
                    "frames": .array(
                        session.frames.map { frame in
                            var object: [String: JSONValue] = [
                                "i": .integer(frame.index), "s": .string(frame.summary), "j": .string(frame.json),
                            ]
                            if let offset = frame.offset { object["t"] = JSONValue(offset) }
                            if let direction = frame.direction { object["d"] = .string(direction.rawValue) }
                            if let type = frame.type { object["y"] = .string(type) }
                            if let phase = frame.phase { object["p"] = .string(phase) }
                            if let answers = frame.answers { object["a"] = .integer(answers) }
                            if let final = frame.finalOfStream { object["f"] = .integer(final) }
                            if !frame.notes.isEmpty { object["n"] = .array(frame.notes.map(noteJSON)) }
                            return .object(object)
                        }),
                ])
            })
        // `</` would end the script element early; JSON allows `<\/`.
        return JSONWriter.string(value).replacingOccurrences(of: "</", with: "<\\/")
    }

    private static func noteJSON(_ note: CaptureReport.Note) -> JSONValue {
        var object: [String: JSONValue] = [
            "severity": .string(note.finding.severity.rawValue), "rule": .string(note.finding.rule), "code": .string(note.finding.code),
            "message": .string(note.finding.message),
        ]
        if let path = note.finding.path, !path.components.isEmpty { object["path"] = .string(path.description) }
        if let location = note.specLocation { object["where"] = .string(location) }
        return .object(object)
    }

    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}

extension HTMLReport {
    /// Validates the capture `bytes` (JSONL or HAR, named `file` in the page) against `spec` and
    /// renders its report: what `wire validate --html` writes, for a capture held in memory.
    public static func render(capture bytes: [UInt8], file: String, spec: ProtocolSpec) -> (page: String, summary: ValidationSummary) {
        var validation = CaptureValidation(spec: spec)
        var recorder = CaptureReportRecorder(spec: spec)
        let reader = CaptureReader(file: file, tagField: spec.tagField, direction: nil) { [validator = validation.validator] tag in
            validator.direction(ofTag: tag)
        }
        reader.read(
            bytes: bytes,
            frame: { frame in
                let findings = validation.process(frame)
                recorder.record(frame, findings: findings, phase: validation.phase(file: frame.file, session: frame.session))
            },
            problem: { problem in recorder.record(unplaced: [validation.process(problem)]) })
        recorder.record(unplaced: validation.finish())
        return (render(recorder.report, summary: validation.summary, captures: [file], spec: spec), validation.summary)
    }
}
