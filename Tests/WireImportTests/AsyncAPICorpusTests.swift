import Foundation
import Testing
import WireRuntime
import WireSpec
import WireTestSupport
import WireValidator

@testable import WireImport

/// Public AsyncAPI 3 documents (see Corpus/README.md for their sources) through the import:
/// the spec each one gives and its diagnostics are golden files; every example the spec keeps
/// validates, and a broken copy of each is refused at the field that was broken.
@Suite struct AsyncAPICorpusTests {
    static let corpus = Golden.repositoryRoot().appendingPathComponent("Tests/WireImportTests/Corpus")

    /// The corpus documents, by file name, with the number of their examples the spec keeps
    /// (Kraken's two break the document's own schemas: see its diagnostics; Slack's has none).
    static let keptExamples = [
        "websocket-gemini.yml": 1, "kraken-websocket-request-reply-multiple-channels.yml": 0, "slack-rtm.yml": 0,
    ]
    static let documents = keptExamples.keys.sorted()

    @Test("Each document imports to its golden spec, with its golden diagnostics", arguments: documents)
    func imports(_ name: String) throws {
        let (text, diagnostics, _) = try Self.importing(name)
        let stem = name.split(separator: ".").dropLast().joined(separator: ".")
        Golden.check(text, against: "Tests/WireImportTests/Corpus/\(stem).imported.yaml")
        Golden.check(diagnostics.joined(separator: "\n") + "\n", against: "Tests/WireImportTests/Corpus/\(stem).diagnostics.txt")
    }

    @Test("Each document's kept examples, as the frames the example package decodes through its generated types", arguments: documents)
    func examplesFile(_ name: String) throws {
        let (_, _, spec) = try Self.importing(name)
        var lines = ""
        for message in spec.messages {
            for example in message.examples {
                lines += JSONWriter.string(.object(["dir": .string(message.direction.rawValue), "frame": JSONValue(spec: example)])) + "\n"
            }
        }
        let stem = name.split(separator: ".").dropLast().joined(separator: ".")
        Golden.check(lines, against: "Tests/WireImportTests/Corpus/\(stem).examples.jsonl")
    }

    @Test("Each kept example validates; a copy with one field broken is refused at that field", arguments: documents)
    func examples(_ name: String) throws {
        let (_, _, spec) = try Self.importing(name)
        #expect(Self.checkExamples(of: spec) == Self.keptExamples[name], "\(name): the examples the spec keeps")
    }

    /// Checks that every example of `spec` validates and that a copy with its first field made an
    /// array of arrays is refused at that field (or, for an array field, at its first item);
    /// returns how many examples were broken that way.
    static func checkExamples(of spec: ProtocolSpec) -> Int {
        let validator = FrameValidator(spec: spec)
        var checked = 0
        for message in spec.messages {
            for example in message.examples {
                let frame = JSONValue(spec: example)
                #expect(errors(frame, message.direction, validator).isEmpty, "\(message.tag): \(frame)")
                guard case .object(var members) = frame, let field = message.shape.fields.first(where: { members[$0.name] != nil }) else { continue }
                members[field.name] = .array([.array([])])
                #expect(
                    errors(.object(members), message.direction, validator).contains {
                        $0.hasSuffix("at $.\(field.name)") || $0.hasSuffix("at $.\(field.name)[0]")
                    },
                    "\(message.tag).\(field.name)")
                checked += 1
            }
        }
        return checked
    }

    static func importing(_ name: String) throws -> (text: String, diagnostics: [String], spec: ProtocolSpec) {
        let root = Golden.repositoryRoot().path + "/"
        let result = AsyncAPIImporter.importDocument(atPath: root + "Tests/WireImportTests/Corpus/\(name)")
        let text = try #require(result.spec)
        let spec = try SpecLoader.check(yaml: text, file: "\(name).imported.yaml").get()
        // Relative to the repository, so the golden files name the document as the corpus does.
        return (text, result.diagnostics.map { $0.description.replacingOccurrences(of: root, with: "") }, spec)
    }

    static func errors(_ frame: JSONValue, _ direction: Direction, _ validator: FrameValidator) -> [String] {
        guard case .checked(_, let issues) = validator.check(Array(JSONWriter.string(frame).utf8), direction: direction) else {
            return ["not a frame"]
        }
        return issues.errors.map { "\($0.rule) at \($0.path)" }
    }
}
