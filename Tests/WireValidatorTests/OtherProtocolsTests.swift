import Foundation
import Testing
import WireTestSupport

/// `wire lint`, `docs`, `schema` and `validate` work on the Wormhole and CoachMe specs too.
@Suite struct OtherProtocolsTests {
    @Test(arguments: ["Spec/examples/wormhole.yaml", "Spec/examples/coachme.yaml"])
    func lintDocsAndSchemas(_ spec: String) async throws {
        let lint = try await WireTool.run(["lint", spec])
        #expect(lint.status == 0 && lint.stderr == "")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("wire-other-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        for format in ["markdown", "html"] {
            #expect(try await WireTool.run(["docs", spec, "--format", format, "--output", output]).status == 0)
        }
        #expect(try await WireTool.run(["schema", spec, "--format", "json-schema", "--output", output]).status == 0)
        #expect(try await WireTool.run(["schema", spec, "--format", "asyncapi", "--output", output]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: output).sorted()
        let name = URL(fileURLWithPath: spec).deletingPathExtension().lastPathComponent
        #expect(files == ["\(name).asyncapi.json", "\(name).client.schema.json", "\(name).html", "\(name).md", "\(name).server.schema.json"])
    }

    @Test func validateAnSSECaptureOnePayloadPerLine() async throws {
        let run = try await WireTool.run([
            "validate", "--spec", "Spec/examples/coachme.yaml", "--direction", "server", "Examples/captures/coachme-stream.jsonl",
        ])
        #expect(run.status == 0)
        #expect(run.stdout == "1 session, 3 frames: server done 1, server token 2\n0 errors, 0 warnings\n")
        let bad = try await WireTool.run(
            ["validate", "--spec", "Spec/examples/coachme.yaml", "--direction", "server", "-"], input: Data(#"{"type":"done","messageId":"x"}"#.utf8))
        #expect(bad.status == 1)
        #expect(bad.stdout.hasPrefix("<stdin>:1: error: server done: missing required field 'message_id' [invalid_event]"))
    }

    @Test func validateAWormholeSessionWithEnvelopes() async throws {
        let run = try await WireTool.run(["validate", "--spec", "Spec/examples/wormhole.yaml", "Examples/captures/wormhole-session.jsonl"])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.hasSuffix("0 errors, 0 warnings\n"))
    }
}
