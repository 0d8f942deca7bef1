import ArgumentParser
import ClawlineClient
import ClawlineProtocol
import ClawlineServer
import Foundation
import WireSpec
import WireValidator

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the whole system in this process: a server, two devices, a streamed answer, a dropped socket and its replay, "
            + "and a capture checked with the spec's rules.")

    @Option(help: "Where to write the JSONL capture of every frame (default: clawline-demo.jsonl in the temporary directory).")
    var capture: String?
    @Option(help: "Milliseconds the demo assistant waits between two snapshots of an answer (the answer ends before the first reconnect).")
    var pace = 50
    @Option(help: "The spec the HTML report of the capture is drawn with; the report is written beside the capture when it can be read.")
    var spec = "Spec/clawline.yaml"

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-demo-\(UUID().uuidString)")
        let captureURL =
            capture.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory.appendingPathComponent("clawline-demo.jsonl")
        let provider = try await LocalProvider.start(dataDirectory: directory, assistant: EchoAssistant(pace: .milliseconds(pace)))
        let run = DemoRun(provider: provider)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try await run.play()
            await provider.shutdown()
        } catch {
            await provider.shutdown()
            throw ClientFailure("the demo failed: \(ClientFailure(error).description)")
        }
        try run.capture.write(to: captureURL)
        let report = CaptureCheck.check(run.capture.text)
        run.say("capture", "\(report.frames) frames in \(report.sessions) sessions written to \(captureURL.path)")
        for finding in report.findings { run.say("capture", "finding: \(finding)") }
        guard report.findings.isEmpty else { throw ClientFailure("the capture breaks the protocol's rules (\(report.findings.count) findings)") }
        run.say("capture", "checked with the spec's rules (the engine `wire validate` runs): 0 findings")
        run.say("capture", "check it again with: swift run --traits Server wire validate \(captureURL.path)")
        writeReport(of: run, besides: captureURL)
        run.printFigures()
    }

    /// Writes the capture as an HTML page (what `wire validate --html` writes) beside it.
    private func writeReport(of run: DemoRun, besides captureURL: URL) {
        let reportURL = captureURL.deletingPathExtension().appendingPathExtension("html")
        guard let model = (try? SpecLoader.check(contentsOf: spec))?.spec else {
            run.say("report", "no report: \(spec) could not be read as a spec (run from the repository's root, or pass --spec)")
            return
        }
        let (page, _) = HTMLReport.render(capture: Array(run.capture.text.utf8), file: captureURL.lastPathComponent, spec: model)
        // The page holds every frame, tokens included: readable by its owner only, as the capture is.
        if FileManager.default.createFile(atPath: reportURL.path, contents: Data(page.utf8), attributes: [.posixPermissions: 0o600]) {
            run.say("report", "the session as a page, every frame and phase: \(reportURL.path) (open it in a browser)")
        } else {
            run.say("report", "no report: \(reportURL.path) could not be written")
        }
    }
}
