import Foundation
import Testing
import WireTestSupport

/// Runs the built `wire` executable as a user would.
@Suite struct LintCommandTests {
    static func wire(_ arguments: [String]) async throws -> WireTool.Run { try await WireTool.run(arguments) }

    static func temporaryFile(_ contents: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wire-lint-\(UUID().uuidString).yaml")
        try contents.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    @Test func cleanSpecPrintsNothingAndExitsZero() async throws {
        let run = try await Self.wire(["lint", "Spec/clawline.yaml"])
        #expect(run.status == 0)
        #expect(run.stdout == "" && run.stderr == "")
    }

    @Test func errorsArePrintedWithLocationsAndExitOne() async throws {
        let path = try Self.temporaryFile(preamble + "\nmessages:\n  client:\n    hello: {fields: {name: {type: strin}}}\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await Self.wire(["lint", path])
        #expect(run.status == 1)
        #expect(run.stderr == "\(path):7:35: error: undefined type 'strin' in field 'name' (did you mean 'string'?)\n")
    }

    @Test func unreadableFileAndBadUsageExitTwo() async throws {
        let missing = try await Self.wire(["lint", "no/such/spec.yaml"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "error: cannot read spec 'no/such/spec.yaml': no such file\n")
        let usage = try await Self.wire(["lint"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("give the spec file, as an argument or with --spec"))
        #expect(usage.stderr.contains("wire lint [--dump <dump>] [<spec>] [--spec <spec>]"))
        let twoSpecs = try await Self.wire(["lint", "Spec/clawline.yaml", "--spec", "Spec/examples/coachme.yaml"])
        #expect(twoSpecs.status == 2 && twoSpecs.stderr.contains("two specs given"))
        let unknownFormat = try await Self.wire(["lint", "--dump", "xml", "Spec/clawline.yaml"])
        #expect(unknownFormat.status == 2)
    }

    /// What lint accepts generates: lint reports the names `wire generate` cannot use.
    @Test func lintReportsNamesThatCannotBeGenerated() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        protocol: {name: demo, title: Demo, version: 1}
        transport: {kind: websocket, path: /ws}
        validation: {errorCode: bad}
        errors: {bad: {httpStatus: 400}}
        types:
          Swift: {fields: {a: integer}}
          String: {fields: {b: integer}}
          ClientFrame: {fields: {c: integer}}
        messages:
          client:
            hello: {fields: {}}
          server:
            hello_there: {typeName: Hello, fields: {}}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await Self.wire(["lint", path])
        #expect(run.status == 1)
        #expect(
            run.stderr.split(separator: "\n").map { String($0).replacingOccurrences(of: path, with: "spec.yaml") } == [
                "spec.yaml:6:3: error: type 'Swift' would be generated as 'Swift', which generated code cannot use as a type name (a module it "
                    + "qualifies names with, or a name Swift reserves); rename the type",
                "spec.yaml:8:3: error: type 'ClientFrame' would be generated as 'ClientFrame', like the client frame enum; rename the type",
                "spec.yaml:13:5: error: message 'server hello_there' would be generated as 'Hello', like message 'client hello'; change its "
                    + "'typeName'",
            ])
    }

    @Test func everyCommandTakesTheSpecAsAnArgumentOrWithSpec() async throws {
        await #expect(try Self.wire(["lint", "--spec", "Spec/clawline.yaml"]).status == 0)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-flags-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        await #expect(try Self.wire(["generate", "--spec", "Spec/examples/coachme.yaml", "--output", directory + "/a"]).status == 0)
        await #expect(
            try Self.wire(["generate", "Spec/examples/coachme.yaml", "--output-directory", directory + "/b"]).status == 0,
            "the former spelling still works")
        await #expect(try Self.wire(["schema", "--spec", "Spec/examples/coachme.yaml", "--format", "asyncapi", "-o", directory + "/c"]).status == 0)
        await #expect(try Self.wire(["docs", "Spec/examples/coachme.yaml", "--format", "markdown", "--output", directory + "/d"]).status == 0)
        for (folder, file) in [("a", "GeneratedTypes.swift"), ("b", "GeneratedTables.swift"), ("c", "coachme.asyncapi.json"), ("d", "coachme.md")] {
            #expect(FileManager.default.fileExists(atPath: "\(directory)/\(folder)/\(file)"), "\(folder)/\(file)")
        }
    }

    @Test func jsonSchemaWithoutADirectionCoversBothDirections() async throws {
        let run = try await Self.wire(["schema", "Spec/clawline.yaml", "--format", "json-schema"])
        #expect(run.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect((document["anyOf"] as? [[String: String]])?.compactMap { $0["$ref"] } == ["#/$defs/client-frames", "#/$defs/server-frames"])
        let defs = try #require(document["$defs"] as? [String: Any])
        #expect(defs["client-message"] != nil && defs["server-message"] != nil, "the same tag's shape in each direction")
    }

    @Test func dumpJSONPrintsTheCheckedModel() async throws {
        let run = try await Self.wire(["lint", "--dump", "json", "Spec/clawline.yaml"])
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
