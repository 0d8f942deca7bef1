import Foundation
import Testing
import WireCodegen
import WireRuntime
import WireSpec
import WireTestSupport
import WireValidator

@testable import WireImport

/// `wire import asyncapi` on documents written by hand, each showing one construct.
@Suite struct AsyncAPIImportTests {
    /// Imports `yaml` (written to a temporary file) and loads the spec it writes.
    static func imported(
        _ yaml: String, options: AsyncAPIImporter.Options = .init()
    ) throws -> (spec: ProtocolSpec?, text: String, diagnostics: [String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("doc.yaml").path
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: path))
        let result = AsyncAPIImporter.importDocument(atPath: path, options: options)
        let text = try #require(result.spec)
        let checked = SpecLoader.check(yaml: text, file: "imported.yaml")
        #expect(checked.spec != nil, "the written spec lints: \(checked.diagnostics)\n\(text)")
        let diagnostics = result.diagnostics.map { "\($0.location.line): \($0.severity.rawValue): \($0.message)" }
        return (checked.spec, text, diagnostics)
    }

    static let chat = """
        asyncapi: 3.0.0
        info: {title: Tiny Chat, version: 2.1.0, description: A chat.}
        servers:
          main: {host: chat.example.com, protocol: wss}
        channels:
          room:
            address: /chat
            messages:
              say: {$ref: '#/components/messages/say'}
              said: {$ref: '#/components/messages/said'}
        operations:
          sendSay: {action: receive, channel: {$ref: '#/channels/room'}, messages: [{$ref: '#/channels/room/messages/say'}]}
          sendSaid: {action: send, channel: {$ref: '#/channels/room'}, messages: [{$ref: '#/channels/room/messages/said'}]}
        components:
          messages:
            say:
              summary: A line the user says.
              payload:
                type: object
                required: [type, text]
                additionalProperties: false
                properties:
                  type: {const: say}
                  text: {type: string, minLength: 1, maxLength: 500}
                  mood: {$ref: '#/components/schemas/Mood'}
              examples:
                - payload: {type: say, text: hi, mood: calm}
            said:
              payload:
                allOf:
                  - $ref: '#/components/schemas/Stamped'
                  - type: object
                    required: [type, text, tags]
                    properties:
                      type: {type: string, const: said}
                      text: {type: string}
                      tags: {type: array, items: {type: string, pattern: '^[a-z]+$'}, maxItems: 3}
                      scores: {type: object, additionalProperties: {type: integer, minimum: 0}}
              examples:
                - payload: {type: said, text: hi, tags: [a], at: '2026-01-01T00:00:00Z'}
                - payload: {type: said, text: hi, tags: [A1], at: '2026-01-01T00:00:00Z'}
          schemas:
            Mood: {type: string, enum: [calm, loud]}
            Stamped:
              type: object
              required: [at]
              properties:
                at: {type: string, format: date-time}
        """

    @Test("Operations give directions, allOf merges, $refs become named types, examples are checked")
    func aSmallChat() throws {
        let (spec, _, diagnostics) = try Self.imported(Self.chat)
        let model = try #require(spec)
        #expect(model.name == "tiny_chat" && model.version == 2 && model.tagField == "type")
        #expect(model.messages(.client).map(\.tag) == ["say"])
        #expect(model.messages(.server).map(\.tag) == ["said"])
        let say = try #require(model.messages(.client).first)
        #expect(say.shape.unknownFields == .reject)
        #expect(say.shape.fields.map(\.name) == ["text", "mood"])
        #expect(say.shape.fields[0].constraints.minLength == 1 && say.shape.fields[0].constraints.maxLength == 500)
        #expect(say.shape.fields[1].type == .named("Mood") && !say.shape.fields[1].required)
        #expect(say.examples.count == 1)
        let said = try #require(model.messages(.server).first)
        #expect(Set(said.shape.fields.map(\.name)) == ["at", "text", "tags", "scores"])
        #expect(said.shape.fields.first { $0.name == "at" }?.constraints.format == .iso8601)
        // The second example breaks its own pattern: left out, at its line.
        #expect(said.examples.count == 1)
        #expect(
            diagnostics.contains { $0.hasPrefix("41: warning: this example of 'said' breaks its own schema") && $0.contains("$.tags[0]") },
            "\(diagnostics)")
        #expect(diagnostics.contains { $0.contains("version '2.1.0' is imported as 2") })
    }

    @Test("What cannot be carried over is a diagnostic at its line")
    func refusals() throws {
        let yaml = """
            asyncapi: 3.0.0
            info: {title: Refusals, version: '1'}
            channels:
              c:
                address: /ws
                messages:
                  a: {$ref: '#/components/messages/a'}
                  b: {$ref: '#/components/messages/b'}
                  c: {$ref: '#/components/messages/c'}
            operations:
              in: {action: receive, channel: {$ref: '#/channels/c'}}
            components:
              messages:
                a:
                  payload:
                    type: object
                    properties:
                      type: {const: a}
                      n: {type: number, multipleOf: 2}
                      s: {not: {type: string}}
                b:
                  contentType: application/octet-stream
                  payload: {type: string}
                c:
                  payload:
                    type: object
                    properties:
                      type: {const: a}
            """
        let (spec, _, diagnostics) = try Self.imported(yaml)
        #expect(spec?.messages(.client).map(\.tag) == ["a"])
        #expect(diagnostics.contains { $0.hasPrefix("19: warning: 'multipleOf' is left out") }, "\(diagnostics)")
        #expect(diagnostics.contains { $0.hasPrefix("20: warning: 'not' is left out") }, "\(diagnostics)")
        #expect(diagnostics.contains { $0.hasPrefix("22: error: message 'b' has content type 'application/octet-stream'") }, "\(diagnostics)")
        #expect(
            diagnostics.contains { $0.contains("error: client frames 'a' and 'c' both have type 'a' and nothing else tells them apart") },
            "\(diagnostics)")
        #expect(!diagnostics.contains { $0.contains("no property tells") }, "'type' is fixed in both; the clash is the error")
    }

    @Test("Frames with no property that tells them apart: an error that says how to tag them; --tag-field names one")
    func untaggedFrames() throws {
        let yaml = """
            asyncapi: 3.0.0
            info: {title: Untagged, version: '1'}
            channels:
              c:
                address: /ws
                messages:
                  a: {payload: {type: object, properties: {op: {type: string, enum: [a]}, x: {type: integer}}}}
                  b: {payload: {type: object, properties: {op: {type: string, enum: [b]}, y: {type: integer}}}}
            operations:
              in: {action: receive, channel: {$ref: '#/channels/c'}}
            """
        let found = try Self.imported(yaml)
        #expect(found.spec?.tagField == "op", "a one-value enum tags as a const does")
        let untagged = yaml.replacingOccurrences(of: "{type: string, enum: [a]}", with: "{type: string}").replacingOccurrences(
            of: "{type: string, enum: [b]}", with: "{type: string}")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("untagged-\(UUID().uuidString).yaml")
        try Data(untagged.utf8).write(to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = AsyncAPIImporter.importDocument(atPath: directory.path)
        #expect(
            result.diagnostics.contains {
                $0.severity == .error && $0.message.contains("no property tells the client frames apart") && $0.message.contains("--tag-field")
            })
    }

    @Test("A 2.x document is refused with what to do")
    func asyncAPI2() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("v2-\(UUID().uuidString).yaml")
        try Data("asyncapi: 2.6.0\ninfo: {title: Old, version: '1'}\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = AsyncAPIImporter.importDocument(atPath: file.path)
        #expect(result.spec == nil)
        #expect(
            result.diagnostics.map(\.description) == [
                "\(file.path):1:11: error: this imports AsyncAPI 3 documents; found '2.6.0' "
                    + "(convert a 2.x document with the AsyncAPI CLI's 'convert' first)"
            ])
    }
}
