import WireSpec

/// How `wire probe` prints its results.
public enum ProbeReport {
    /// One line per case: verdict, name, the rule's spec location, what was sent, what the spec
    /// expects and what came back; a reason under a failure or a skip.
    public static func line(_ result: ProbeResult) -> String {
        let verdict = ["passed": "PASS", "failed": "FAIL", "skipped": "SKIP"][result.verdict.rawValue] ?? "?"
        let place = "\(result.probeCase.location.file):\(result.probeCase.location.line)"
        var text = "\(verdict) \(result.probeCase.name) (\(place)) sent \(abbreviated(result.probeCase.frames)) expected \(result.expected)"
        if result.verdict != .skipped { text += " got \(result.got)" }
        if !result.detail.isEmpty { text += "\n     \(result.detail)" }
        return text
    }

    /// The summary line: counts, and the seed to replay the positive cases.
    public static func summary(_ results: [ProbeResult], gaps: [ProbeGap], seed: UInt64, seconds: Double) -> String {
        let count = { (verdict: ProbeResult.Verdict) in results.filter { $0.verdict == verdict }.count }
        return "\(results.count) cases: \(count(.passed)) passed, \(count(.failed)) failed, \(count(.skipped)) skipped; "
            + "\(gaps.count) rules without a case; \(String(format: "%.1f", seconds)) s; seed \(seed) (replay with --seed \(seed))"
    }

    /// The rules no case checks, one per line.
    public static func gapLines(_ gaps: [ProbeGap]) -> [String] {
        gaps.map { "GAP  \($0.name) (\($0.location.file):\($0.location.line)): \($0.reason)" }
    }

    /// A JUnit XML report, one test case per probe case.
    public static func junit(_ results: [ProbeResult], suite: String, seconds: Double) -> String {
        let failures = results.filter { $0.verdict == .failed }.count
        let skipped = results.filter { $0.verdict == .skipped }.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites>\n"
        xml += "  <testsuite name=\"\(escaped(suite))\" tests=\"\(results.count)\" failures=\"\(failures)\" skipped=\"\(skipped)\" "
        xml += "time=\"\(String(format: "%.3f", seconds))\">\n"
        for result in results {
            let seconds = Double(result.duration.components.seconds) + Double(result.duration.components.attoseconds) / 1e18
            let place = "\(result.probeCase.location.file):\(result.probeCase.location.line)"
            xml += "    <testcase classname=\"\(escaped(result.probeCase.kind.rawValue))\" name=\"\(escaped(result.probeCase.name))\" "
            xml +=
                "file=\"\(escaped(result.probeCase.location.file))\" line=\"\(result.probeCase.location.line)\" "
                + "time=\"\(String(format: "%.3f", seconds))\""
            switch result.verdict {
            case .passed: xml += "/>\n"
            case .skipped: xml += ">\n      <skipped message=\"\(escaped(result.detail))\"/>\n    </testcase>\n"
            case .failed:
                let message = "\(place): expected \(result.expected), got \(result.got): \(result.detail)"
                xml +=
                    ">\n      <failure message=\"\(escaped(message))\">sent \(escaped(abbreviated(result.probeCase.frames)))</failure>\n"
                    + "    </testcase>\n"
            }
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }

    private static func abbreviated(_ frames: [String]) -> String {
        let first = frames.first ?? ""
        let shown = first.count > 120 ? "\(first.prefix(100))… (\(first.utf8.count) bytes)" : first
        return frames.count > 1 ? "\(frames.count)× \(shown)" : shown
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
