import ArgumentParser
import Foundation
@_spi(Generated) import WireRuntime
import WireSpec
import WireValidator

/// `wire validate FILE...`: checks captured sessions of JSON frames against a spec.
struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check captured JSON frames (JSONL or HAR) frame by frame and across each session.",
        discussion: """
            JSONL lines are envelopes {"dir": "client"|"server", "ts": <epoch ms or ISO-8601>, "session": <id>, \
            "frame": <object or JSON text>} or bare frames; HAR 1.2 entries with _webSocketMessages are sessions. \
            '-' reads standard input. Exit status: 0 without errors, 1 with errors, 2 for usage or I/O errors.
            """
    )

    enum OutputFormat: String, ExpressibleByArgument {
        case text, json
    }

    @Option(name: .long, help: "The spec (default: Spec/clawline.yaml in the current directory).")
    var spec: String?

    @Option(name: .long, help: "Output: text (one finding per line, then a summary) or json (JSON Lines, then a summary object).")
    var format: OutputFormat = .text

    @Option(name: .long, help: "The direction of bare frames (client or server); by default it comes from the tag.")
    var direction: Direction?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also write one self-contained HTML page: each session's timeline, phases, answers and findings.", valueName: "REPORT.html"))
    var html: String?

    @Argument(help: "Capture files; '-' is standard input.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one capture file, or '-' for standard input") }
    }

    func run() throws {
        let specPath = try resolvedSpecPath()
        let model = try loadCheckedSpec(specPath)
        var validation = CaptureValidation(spec: model)
        // Reading and parsing run on a second thread when this process may use more than one core
        // (the same findings, in the same order); on one core the threads would only take turns.
        // The report needs every frame; the pipelined path hands on findings only.
        let pipelined = UsableCores.count > 1 && html == nil
        var recorder = html.map { _ in CaptureReportRecorder(spec: model) }
        let output = FindingPrinter(format: format, colors: format == .text && isatty(STDOUT_FILENO) == 1)
        // The sessions' state fills the heap: in 2 MiB pages where Linux has them (HugePageHeap).
        var heap = HugePageHeap.reserve(64 << 20)
        var framesRead = 0
        for file in files {
            let handle: FileHandle
            if file == "-" {
                handle = FileHandle.standardInput
            } else {
                guard let opened = FileHandle(forReadingAtPath: file) else {
                    output.flush()
                    printError(
                        "error: cannot read capture '\(file)': \(FileManager.default.fileExists(atPath: file) ? "permission denied" : "no such file")"
                    )
                    throw ExitCode(ExitStatus.usage)
                }
                handle = opened
            }
            let name = file == "-" ? "<stdin>" : file
            let reader = CaptureReader(file: name, tagField: model.tagField, direction: direction) { [validator = validation.validator] tag in
                validator.direction(ofTag: tag)
            }
            do {
                if pipelined {
                    try validation.validate(handle, reader: reader) { output.print($0) }
                } else {
                    try reader.read(
                        handle,
                        frame: { frame in
                            framesRead &+= 1
                            if framesRead & 4095 == 0 { heap.adviseGrowth() }
                            let findings = validation.process(frame)
                            for finding in findings { output.print(finding) }
                            recorder?.record(frame, findings: findings, phase: validation.phase(file: frame.file, session: frame.session))
                        },
                        problem: { problem in
                            let finding = validation.process(problem)
                            output.print(finding)
                            recorder?.record(unplaced: [finding])
                        })
                }
            } catch {
                output.flush()
                printError("error: cannot read capture '\(name)': \(error.localizedDescription)")
                throw ExitCode(ExitStatus.usage)
            }
        }
        let ending = validation.finish()
        for finding in ending { output.print(finding) }
        output.print(validation.summary)
        output.flush()
        if let html, var recorder {
            recorder.record(unplaced: ending)
            let page = HTMLReport.render(recorder.report, summary: validation.summary, captures: files, spec: model)
            // The page holds every frame of the capture (tokens included): readable by its owner only.
            try? FileManager.default.removeItem(atPath: html)
            guard FileManager.default.createFile(atPath: html, contents: Data(page.utf8), attributes: [.posixPermissions: 0o600]) else {
                printError("error: cannot write the report '\(html)'")
                throw ExitCode(ExitStatus.usage)
            }
            printError("report: \(html)")
        }
        // Exit here rather than return: tearing down the state of every session of a large
        // capture takes measurable time and changes nothing.
        Foundation.exit(validation.summary.errorCount > 0 ? ExitStatus.failure : ExitStatus.success)
    }

    private func resolvedSpecPath() throws -> String {
        if let spec { return spec }
        let fallback = "Spec/clawline.yaml"
        guard FileManager.default.fileExists(atPath: fallback) else {
            printError("error: no --spec given and there is no \(fallback) in the current directory")
            throw ExitCode(ExitStatus.usage)
        }
        return fallback
    }
}

extension Direction: ExpressibleByArgument {}

/// Prints findings and the summary as text or JSON Lines on standard output, buffered so a
/// capture with many findings does not cost a write per line.
final class FindingPrinter {
    let format: ValidateCommand.OutputFormat
    let colors: Bool
    private var buffer = Data()

    init(format: ValidateCommand.OutputFormat, colors: Bool) {
        self.format = format
        self.colors = colors
    }

    deinit { flush() }

    /// Writes what is buffered.
    func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    func print(_ located: LocatedFinding) {
        let finding = located.finding
        switch format {
        case .json:
            var object: [String: JSONValue] = [
                "file": .string(located.file), "session": .string(located.session), "severity": .string(finding.severity.rawValue),
                "code": .string(finding.code), "rule": .string(finding.rule), "message": .string(finding.message),
            ]
            object["line"] = located.line.map { .integer($0) } ?? .null
            object["frame"] = located.frame.map { .integer($0) } ?? .null
            object["direction"] = located.direction.map { .string($0.rawValue) } ?? .null
            object["type"] = located.type.map { .string($0) } ?? .null
            object["path"] = finding.path.map { .string($0.description) } ?? .null
            write(JSONWriter.string(.object(object)))
        case .text:
            var place = located.file
            if let line = located.line {
                place += ":\(line)"
            } else {
                place +=
                    ":"
                    + [located.session.isEmpty ? nil : located.session, located.frame.map { "frame \($0)" }].compactMap { $0 }.joined(separator: " ")
            }
            let severity = finding.severity.rawValue
            let label = colors ? (finding.severity == .error ? "\u{1B}[1;31m\(severity)\u{1B}[0m" : "\u{1B}[1;33m\(severity)\u{1B}[0m") : severity
            let frame = [located.direction?.rawValue, located.type].compactMap { $0 }.joined(separator: " ")
            write("\(place): \(label): \(frame.isEmpty ? "" : frame + ": ")\(finding.message) [\(finding.code)]")
        }
    }

    func print(_ summary: ValidationSummary) {
        switch format {
        case .json:
            let counts = { (table: [String: Int]) in JSONValue.object(table.mapValues { .integer($0) }) }
            write(
                JSONWriter.string(
                    .object([
                        "summary": .object([
                            "sessions": .integer(summary.sessions), "frames": .integer(summary.frames), "framesByType": counts(summary.framesByType),
                            "errors": .integer(summary.errorCount), "warnings": .integer(summary.warningCount),
                            "errorsByCode": counts(summary.errorsByCode), "warningsByCode": counts(summary.warningsByCode),
                        ])
                    ])))
        case .text:
            let list = { (table: [String: Int]) in table.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
            write(
                "\(summary.sessions) session\(summary.sessions == 1 ? "" : "s"), \(summary.frames) "
                    + "frame\(summary.frames == 1 ? "" : "s")\(summary.framesByType.isEmpty ? "" : ": " + list(summary.framesByType))"
            )
            var line = "\(summary.errorCount) error\(summary.errorCount == 1 ? "" : "s")"
            if summary.errorCount > 0 { line += " (\(list(summary.errorsByCode)))" }
            line += ", \(summary.warningCount) warning\(summary.warningCount == 1 ? "" : "s")"
            if summary.warningCount > 0 { line += " (\(list(summary.warningsByCode)))" }
            write(line)
        }
    }

    private func write(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }
}
