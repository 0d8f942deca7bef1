import WireSpec

/// How `wire probe` prints its results (in ``CheckReport``'s format, shared with `clawline conformance`).
public enum ProbeReport {
    /// One line per case: verdict, name, the rule's spec location, what was sent, what the spec
    /// expects and what came back; a reason under a failure or a skip.
    public static func line(_ result: ProbeResult) -> String { CheckReport.line(row(result)) }

    /// The summary line: counts, and the seed to replay the positive cases.
    public static func summary(_ results: [ProbeResult], gaps: [ProbeGap], seed: UInt64, seconds: Double) -> String {
        "\(CheckReport.counts(results.map(\.verdict))); \(gaps.count) rules without a case; \(String(format: "%.1f", seconds)) s; "
            + "seed \(seed) (replay with --seed \(seed))"
    }

    /// The rules no case checks, one per line.
    public static func gapLines(_ gaps: [ProbeGap]) -> [String] {
        gaps.map { "GAP  \($0.name) (\($0.location.file):\($0.location.line)): \($0.reason)" }
    }

    /// A JUnit XML report, one test case per probe case.
    public static func junit(_ results: [ProbeResult], suite: String, seconds: Double) -> String {
        CheckReport.junit(results.map(row), suite: suite, seconds: seconds)
    }

    static func row(_ result: ProbeResult) -> CheckReportRow {
        CheckReportRow(
            verdict: result.verdict, name: result.probeCase.name, group: result.probeCase.kind.rawValue, file: result.probeCase.location.file,
            line: result.probeCase.location.line, sent: abbreviated(result.probeCase.frames), expected: result.expected, got: result.got,
            detail: result.detail, duration: result.duration)
    }

    private static func abbreviated(_ frames: [String]) -> String {
        let first = frames.first ?? ""
        let shown = first.count > 120 ? "\(first.prefix(100))… (\(first.utf8.count) bytes)" : first
        return frames.count > 1 ? "\(frames.count)× \(shown)" : shown
    }
}
