/// One checked case as a report prints it: shared by `wire probe` and `clawline conformance`, so
/// both tools print the same lines and the same JUnit XML.
public struct CheckReportRow: Sendable {
    /// How the case ended.
    public var verdict: ProbeResult.Verdict
    /// The case's name.
    public var name: String
    /// The group the case belongs to (JUnit's `classname`).
    public var group: String
    /// The file of the rule the case checks.
    public var file: String
    /// The line of the rule in ``file`` (0 when it is not known).
    public var line: Int
    /// What the case sent, in short.
    public var sent: String
    /// What the contract expects.
    public var expected: String
    /// What came back.
    public var got: String
    /// Why it failed or was skipped, or a note on a pass.
    public var detail: String
    /// How long the case took.
    public var duration: Duration

    /// A row.
    public init(
        verdict: ProbeResult.Verdict, name: String, group: String, file: String, line: Int, sent: String, expected: String, got: String,
        detail: String, duration: Duration
    ) {
        self.verdict = verdict
        self.name = name
        self.group = group
        self.file = file
        self.line = line
        self.sent = sent
        self.expected = expected
        self.got = got
        self.detail = detail
        self.duration = duration
    }

    /// `file:line`, or the file alone when the line is not known.
    public var place: String { line > 0 ? "\(file):\(line)" : file }
}

/// Prints ``CheckReportRow``s: a line per case, or JUnit XML.
public enum CheckReport {
    /// One line per case: verdict, name, the rule's location, what was sent, what was expected and
    /// what came back; a reason under a failure or a skip.
    public static func line(_ row: CheckReportRow) -> String {
        var text = "\(label(row.verdict)) \(row.name) (\(row.place)) sent \(row.sent) expected \(row.expected)"
        if row.verdict != .skipped { text += " got \(row.got)" }
        if !row.detail.isEmpty { text += "\n     \(row.detail)" }
        return text
    }

    /// A verdict's word at the start of a line.
    static func label(_ verdict: ProbeResult.Verdict) -> String {
        switch verdict {
        case .passed: "PASS"
        case .failed: "FAIL"
        case .warned: "WARN"
        case .setupFailed: "SETUP"
        case .skipped: "SKIP"
        }
    }

    /// The counts of a run: `N cases: P passed, F failed, W warned, E setup failures, S skipped`
    /// (warnings and setup failures only when there are some).
    public static func counts(_ verdicts: [ProbeResult.Verdict]) -> String {
        let count = { (verdict: ProbeResult.Verdict) in verdicts.filter { $0 == verdict }.count }
        var parts = ["\(count(.passed)) passed", "\(count(.failed)) failed"]
        if count(.warned) > 0 { parts.append("\(count(.warned)) warned") }
        if count(.setupFailed) > 0 { parts.append("\(count(.setupFailed)) setup failures (rules not judged)") }
        parts.append("\(count(.skipped)) skipped")
        return "\(verdicts.count) cases: " + parts.joined(separator: ", ")
    }

    /// The exit status a run's verdicts call for: 1 when a rule failed, else 2 when a case could
    /// not be judged (its setup failed), else 0 (warnings do not fail a run).
    public static func exitStatus(_ verdicts: [ProbeResult.Verdict]) -> Int32 {
        if verdicts.contains(.failed) { return 1 }
        return verdicts.contains(.setupFailed) ? 2 : 0
    }

    /// A JUnit XML report, one test case per row.
    public static func junit(_ rows: [CheckReportRow], suite: String, seconds: Double) -> String {
        let failures = rows.filter { $0.verdict == .failed }.count
        let errors = rows.filter { $0.verdict == .setupFailed }.count
        let skipped = rows.filter { $0.verdict == .skipped }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites>\n"
        xml += "  <testsuite name=\"\(escaped(suite))\" tests=\"\(rows.count)\" failures=\"\(failures)\" errors=\"\(errors)\" "
        xml += "skipped=\"\(skipped)\" "
        xml += "time=\"\(String(format: "%.3f", seconds))\">\n"
        for row in rows {
            let seconds = Double(row.duration.components.seconds) + Double(row.duration.components.attoseconds) / 1e18
            xml += "    <testcase classname=\"\(escaped(row.group))\" name=\"\(escaped(row.name))\" "
            xml += "file=\"\(escaped(row.file))\" line=\"\(row.line)\" time=\"\(String(format: "%.3f", seconds))\""
            switch row.verdict {
            case .passed: xml += "/>\n"
            case .skipped: xml += ">\n      <skipped message=\"\(escaped(row.detail))\"/>\n    </testcase>\n"
            case .failed:
                let message = "\(row.place): expected \(row.expected), got \(row.got): \(row.detail)"
                xml += ">\n      <failure message=\"\(escaped(message))\">sent \(escaped(row.sent))</failure>\n    </testcase>\n"
            case .setupFailed:
                // JUnit's error: the case could not be judged, apart from a rule that failed.
                let message = "\(row.place): the rule was not judged: \(row.detail)"
                xml += ">\n      <error message=\"\(escaped(message))\">sent \(escaped(row.sent))</error>\n    </testcase>\n"
            case .warned:
                xml += ">\n      <system-out>warning: \(escaped(row.detail))</system-out>\n    </testcase>\n"
            }
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }

    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n": result += "&#10;"
            default: result.append(character)
            }
        }
        return result
    }
}
