import Foundation
import Testing
import WireSpec
import WireTestSupport

@testable import WireValidator

/// `wire validate --html`: the captured session as one self-contained page. The page's text is
/// checked here; its rendering in a real browser by `Scripts/check-report` in `.ci/run`.
@Suite struct HTMLReportTests {
    static let root = Golden.repositoryRoot()
    static let spec = try! SpecLoader.check(contentsOf: root.appendingPathComponent("Spec/clawline.yaml").path).get()

    static func report(of capture: String) throws -> (report: CaptureReport, page: String, summary: ValidationSummary) {
        let bytes = try Array(Data(contentsOf: root.appendingPathComponent("Examples/captures/\(capture)")))
        var validation = CaptureValidation(spec: spec)
        var recorder = CaptureReportRecorder(spec: spec)
        let reader = CaptureReader(file: capture, tagField: spec.tagField, direction: nil) { [validator = validation.validator] in
            validator.direction(ofTag: $0)
        }
        reader.read(
            bytes: bytes,
            frame: { frame in
                let findings = validation.process(frame)
                recorder.record(frame, findings: findings, phase: validation.phase(file: frame.file, session: frame.session))
            },
            problem: { recorder.record(unplaced: [validation.process($0)]) })
        recorder.record(unplaced: validation.finish())
        let (page, summary) = HTMLReport.render(capture: bytes, file: capture, spec: spec)
        return (recorder.report, page, summary)
    }

    @Test("Every finding is on the page, on the frame it is about, with its rule, code and the spec's file:line")
    func everyFindingIsShown() async throws {
        let (report, page, summary) = try Self.report(of: "clawline-mistakes.jsonl")
        let listed = try await WireTool.run(["validate", "--format", "json", "Examples/captures/clawline-mistakes.jsonl"])
        let findings = listed.stdout.split(separator: "\n").dropLast().compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(findings.count == summary.errorCount && summary.errorCount == 17)
        for finding in findings {
            let message = try #require(finding["message"] as? String)
            #expect(page.contains(HTMLReport.escape(message)), "the page shows: \(message)")
        }
        // The findings about frames sit on their frames; the spec's line is named where the rule has one.
        let onFrames = report.sessions.flatMap { $0.frames.flatMap(\.notes) }
        #expect(onFrames.count == findings.filter { $0["frame"] is Int }.count)
        #expect(onFrames.filter { $0.specLocation?.contains("Spec/clawline.yaml:") == true }.count >= 12)
        #expect(page.contains(#"<span id="count-errors">17 errors</span>"#))
        #expect(page.contains(#"<span id="count-frames">21 frames</span>"#))
        // Sessions with findings first.
        #expect(report.sessions.map(\.id) == ["early", "pairing", "chat"])
    }

    @Test("The page is self-contained: no script, style, font or image from anywhere else")
    func nothingIsFetched() throws {
        let page = try Self.report(of: "clawline-mistakes.jsonl").page
        for pattern in [#"src=""#, "<link", "@import", "url(", "http://", "https://"] {
            #expect(!page.contains(pattern), "the page holds \(pattern)")
        }
        // The frames' text cannot end the data's script element early.
        let data = try #require(page.range(of: #"<script type="application/json" id="report-data">"#))
        let end = try #require(page.range(of: "</script>", range: data.upperBound..<page.endIndex))
        #expect(!page[data.upperBound..<end.lowerBound].contains("</"))
    }

    @Test("A valid session: phases, each ack beside the message it answers, snapshots grouped under their final")
    func correlationsAndStreams() throws {
        let (report, page, _) = try Self.report(of: "clawline-session.jsonl")
        #expect(page.contains("No findings"))
        let frames = report.sessions.flatMap(\.frames)
        #expect(Set(frames.compactMap(\.phase)).isSuperset(of: ["unauthenticated", "authenticated"]))
        for session in report.sessions {
            for frame in session.frames where frame.type == "ack" {
                let answered = try #require(frame.answers.map { session.frames[$0 - 1] }, "ack #\(frame.index) of \(session.id) answers a frame")
                #expect(answered.type == "message" && answered.direction == .client)
                #expect(Self.id(of: frame.json) != nil && Self.id(of: frame.json) == Self.id(of: answered.json))
            }
            for frame in session.frames where frame.finalOfStream != nil {
                let final = session.frames[frame.finalOfStream! - 1]
                #expect(final.finalOfStream == nil && final.type == frame.type && final.index > frame.index)
            }
        }
        #expect(frames.contains { $0.finalOfStream != nil }, "the capture's streamed answer is grouped")
    }

    static func id(of json: String) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["id"] as? String
    }

    @Test("wire validate --html writes the page and keeps its text output")
    func theCommandWritesThePage() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString).html")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try await WireTool.run(["validate", "--html", output.path, "Examples/captures/clawline-mistakes.jsonl"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("report: \(output.path)"))
        Golden.check(run.stdout, against: ValidateCommandTests.golden.appendingPathComponent("clawline-mistakes.txt").path)
        let page = try String(contentsOf: output, encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>") && page.contains("17 errors"))
    }
}
