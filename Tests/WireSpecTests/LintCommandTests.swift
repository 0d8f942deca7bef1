import Foundation
import Testing
import WireTestSupport

/// Runs the built `wire` executable as a user would.
@Suite struct LintCommandTests {
    static func wire(_ arguments: [String]) throws -> WireTool.Run { try WireTool.run(arguments) }

    static func temporaryFile(_ contents: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wire-lint-\(UUID().uuidString).yaml")
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func cleanSpecPrintsNothingAndExitsZero() throws {
        let run = try Self.wire(["lint", "Spec/clawline.yaml"])
        #expect(run.status == 0)
        #expect(run.stdout == "" && run.stderr == "")
    }

    @Test func errorsArePrintedWithLocationsAndExitOne() throws {
        let path = try Self.temporaryFile(preamble + "\nmessages:\n  client:\n    hello: {fields: {name: {type: strin}}}\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try Self.wire(["lint", path])
        #expect(run.status == 1)
        #expect(run.stderr == "\(path):7:35: error: undefined type 'strin' in field 'name' (did you mean 'string'?)\n")
    }

    @Test func unreadableFileAndBadUsageExitTwo() throws {
        let missing = try Self.wire(["lint", "no/such/spec.yaml"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "error: cannot read spec 'no/such/spec.yaml': no such file\n")
        let usage = try Self.wire(["lint"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("Missing expected argument '<spec>'"))
        let unknownFormat = try Self.wire(["lint", "--dump", "xml", "Spec/clawline.yaml"])
        #expect(unknownFormat.status == 2)
    }

    @Test func dumpJSONPrintsTheCheckedModel() throws {
        let run = try Self.wire(["lint", "--dump", "json", "Spec/clawline.yaml"])
        #expect(run.status == 0)
        let model = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(model["name"] as? String == "clawline")
        let messages = try #require(model["messages"] as? [[String: Any]])
        #expect(messages.count == 12)
        let first = try #require(messages.first)
        #expect(first["tag"] as? String == "pair_request" && first["direction"] as? String == "client")
        let types = try #require(model["types"] as? [[String: Any]])
        let kind = try #require(types.first?["kind"] as? [String: Any])
        #expect(kind["kind"] as? String == "alias" && kind["type"] as? String == "string")
    }
}
