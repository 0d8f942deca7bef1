import Foundation
import Testing
import WireSpec
import WireTestSupport
import WireValidator

@Suite("The demo, run as a user runs it")
struct DemoTests {
    @Test("`clawline demo` succeeds and its capture passes wire validate's checks of Spec/clawline.yaml")
    func demoCaptureValidates() async throws {
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-demo-test-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: capture) }
        let demo = try await CLIProcess.run(["demo", "--capture", capture.path, "--pace", "20"])
        let transcript = demo.output
        #expect(demo.status == 0, "\(transcript)\(demo.errors)")
        #expect(transcript.contains("replayed final answer"))
        #expect(transcript.contains("0 findings"))

        let spec = try SpecLoader.check(contentsOf: Golden.repositoryRoot().appendingPathComponent("Spec/clawline.yaml").path).get()
        var validation = CaptureValidation(spec: spec)
        var findings: [LocatedFinding] = []
        let reader = CaptureReader(file: capture.path, tagField: "type", direction: nil) { [validator = validation.validator] in
            validator.direction(ofTag: $0)
        }
        let handle = try FileHandle(forReadingFrom: capture)
        _ = try reader.read(handle, frame: { findings += validation.process($0) }, problem: { findings.append(validation.process($0)) })
        findings += validation.finish()
        #expect(findings.isEmpty, "\(findings.map(\.finding.message))")
        #expect(validation.summary.sessions == 5)
        #expect(validation.summary.frames > 30)
    }
}
