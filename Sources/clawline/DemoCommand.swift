import ArgumentParser
import ClawlineClient
import ClawlineProtocol
import ClawlineServer
import Foundation

struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the whole system in this process: a server, two devices, a streamed answer, a dropped socket and its replay, "
            + "and a capture checked with the spec's rules.")

    @Option(help: "Where to write the JSONL capture of every frame (default: clawline-demo.jsonl in the temporary directory).")
    var capture: String?
    @Option(help: "Milliseconds the demo assistant waits between two snapshots of an answer (the answer ends before the first reconnect).")
    var pace = 50

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
        run.printFigures()
    }
}
