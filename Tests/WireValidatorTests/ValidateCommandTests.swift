import Foundation
import Testing
import WireTestSupport

/// `wire validate` on the example captures, compared with golden outputs (refresh with `UPDATE_GOLDEN=1 swift test`).
@Suite struct ValidateCommandTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    @Test(arguments: ["clawline-session.jsonl", "clawline-session.har"])
    func validCapturesPass(_ capture: String) async throws {
        let run = try await WireTool.run(["validate", "Examples/captures/\(capture)"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.hasSuffix("0 errors, 0 warnings\n"))
        #expect(run.stdout.contains("5 sessions, 34 frames"))
    }

    @Test(arguments: ["text", "json"])
    func capturedMistakesAreLocated(_ format: String) async throws {
        let run = try await WireTool.run(["validate", "--format", format, "Examples/captures/clawline-mistakes.jsonl"])
        #expect(run.status == 1)
        #expect(run.stderr == "")
        Golden.check(run.stdout, against: Self.golden.appendingPathComponent("clawline-mistakes.\(format == "text" ? "txt" : "jsonl")").path)
    }

    @Test func jsonOutputHasEveryField() async throws {
        let run = try await WireTool.run(["validate", "--format", "json", "Examples/captures/clawline-mistakes.jsonl"])
        let lines = run.stdout.split(separator: "\n")
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        for key in ["file", "line", "session", "frame", "direction", "type", "severity", "code", "path", "message"] {
            #expect(first.keys.contains(key), "missing \(key)")
        }
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        #expect((summary["summary"] as? [String: Any])?["errors"] as? Int == lines.count - 1)
    }

    @Test func standardInputAndDirection() async throws {
        let text =
            #"{"type":"pair_request","protocolVersion":1,"deviceId":"6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f","claimedName":"K","#
            + #""deviceInfo":{"platform":"iOS","model":"X"}}"#
        let frame = Data(text.utf8 + [0x0A])
        let inferred = try await WireTool.run(["validate", "-"], input: frame)
        #expect(inferred.status == 0)
        #expect(
            inferred.stdout == """
                <stdin>:1: warning: client pair_request: this session's frames carry no timestamps, so its rate limits are not checked [no_timestamps]
                1 session, 1 frame: client pair_request 1
                0 errors, 1 warning (no_timestamps 1)

                """)
        let ambiguous = try await WireTool.run(["validate", "-"], input: Data(#"{"type":"typing","active":true}"#.utf8))
        #expect(ambiguous.status == 1)
        #expect(
            ambiguous.stdout.hasPrefix(
                #"<stdin>:1: error: cannot tell who sent 'typing': both directions have it, or neither; use an envelope with "dir" or --direction "#
                    + #"[capture]"#
            ))
        let given = try await WireTool.run(["validate", "--direction", "server", "-"], input: Data(#"{"type":"typing","active":true}"#.utf8))
        #expect(given.stdout.hasPrefix("<stdin>:1: error: server typing: missing required field 'role' [invalid_message]"))
    }

    /// Thousands of sessions (the heap grows while they are read, in the 2 MiB pages `wire`
    /// asks Linux for) are each counted and checked: a session's own ids, its frames, no finding.
    @Test func manySessionsAreEachCounted() async throws {
        let sessions = 6_000
        var lines = ""
        for session in 0..<sessions {
            let device = String(format: "6f1c2d3e-4b5a-4c6d-8e7f-%012x", session)
            let time = 1_704_672_000_000 + session * 10
            lines += #"{"session":"pair-\#(session)","dir":"client","ts":\#(time),"frame":{"type":"pair_request","protocolVersion":1,"#
            lines += #""deviceId":"\#(device)","claimedName":"K","deviceInfo":{"platform":"iOS","model":"X"}}}"# + "\n"
            lines += #"{"session":"pair-\#(session)","dir":"server","ts":\#(time + 5),"frame":{"type":"pair_result","success":false,"#
            lines += #""reason":"pair_denied"}}"# + "\n"
        }
        let run = try await WireTool.run(["validate", "-"], input: Data(lines.utf8))
        #expect(run.status == 0, "\(run.stdout.suffix(400))\(run.stderr)")
        let counts = "client pair_request \(sessions), server pair_result \(sessions)"
        #expect(run.stdout == "\(sessions) sessions, \(sessions * 2) frames: \(counts)\n0 errors, 0 warnings\n")
    }

    @Test func usageAndIOErrorsExitTwo() async throws {
        #expect(try await WireTool.run(["validate"]).status == 2)
        let missing = try await WireTool.run(["validate", "no/such/capture.jsonl"])
        #expect(missing.status == 2 && missing.stderr == "error: cannot read capture 'no/such/capture.jsonl': no such file\n")
        #expect(try await WireTool.run(["validate", "--format", "xml", "Examples/captures/clawline-session.jsonl"]).status == 2)
        #expect(try await WireTool.run(["validate", "--spec", "no/spec.yaml", "Examples/captures/clawline-session.jsonl"]).status == 2)
    }
}
