import Foundation
import Testing
import WireCodegen
import WireSpec
import WireTestSupport

/// The generated Swift for Spec/clawline.yaml and for the fixture that uses every construct,
/// byte-compared with the files under Golden/. Refresh with `UPDATE_GOLDEN=1 swift test`.
@Suite struct GeneratedSwiftGoldenTests {
    static let root = Golden.repositoryRoot()
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    struct Case: CustomTestStringConvertible, Sendable {
        var spec: String
        var options: SwiftGeneratorOptions
        var testDescription: String { spec }
    }

    static let cases = [
        Case(spec: "Spec/clawline.yaml", options: SwiftGeneratorOptions(namespace: "Clawline")),
        Case(spec: "Tests/Fixtures/everything.yaml", options: SwiftGeneratorOptions(accessLevel: .internal, namespace: "Everything")),
        Case(spec: "Spec/examples/wormhole.yaml", options: SwiftGeneratorOptions(accessLevel: .internal, namespace: "Wormhole")),
        Case(spec: "Spec/examples/coachme.yaml", options: SwiftGeneratorOptions(accessLevel: .internal, namespace: "CoachMe")),
    ]

    static func generate(_ testCase: Case) throws -> [GeneratedFile] {
        let path = root.appendingPathComponent(testCase.spec).path
        var spec = try SpecLoader.check(contentsOf: path).get()
        spec.sourceFile = testCase.spec
        return try SwiftGenerator.generate(spec, options: testCase.options)
    }

    @Test(arguments: cases)
    func generatedSwiftMatchesGoldenFiles(_ testCase: Case) throws {
        let files = try Self.generate(testCase)
        let namespace = try #require(testCase.options.namespace)
        #expect(files.map(\.name) == SwiftGenerator.fileNames)
        let directory = Self.golden.appendingPathComponent(namespace)
        for file in files {
            Golden.check(file.contents, against: directory.appendingPathComponent(file.name).path)
        }
    }

    @Test(arguments: cases)
    func generationIsDeterministic(_ testCase: Case) throws {
        #expect(try Self.generate(testCase) == Self.generate(testCase))
    }

    /// The build plugin cannot link the generator, so it keeps a copy of the file names; this keeps the copy true.
    @Test func thePluginDeclaresTheFilesTheGeneratorWrites() throws {
        let plugin = try String(contentsOf: Self.root.appendingPathComponent("Plugins/WireCodegenPlugin/WireCodegenPlugin.swift"), encoding: .utf8)
        let declared = plugin.split(separator: "\"").map(String.init).filter { $0.hasPrefix("Generated") && $0.hasSuffix(".swift") }
        #expect(declared == SwiftGenerator.fileNames)
    }

    @Test func theNamespaceIsTheProtocolsNameUnlessConfigured() throws {
        let yaml = """
            protocol: {name: coach_me, title: CoachMe, version: 1}
            transport: {kind: sse, path: /chat}
            validation: {errorCode: bad}
            errors: {bad: {httpStatus: 400}}
            messages: {server: {token: {fields: {content: string}}}}
            """
        let spec = try SpecLoader.check(yaml: yaml, file: "chat-protocol.yaml").get()
        #expect(SwiftGenerator.namespace(for: spec) == "CoachMe", "from the protocol's name, not the file's")
        #expect(SwiftGenerator.namespace(for: spec, options: SwiftGeneratorOptions(namespace: "Coach")) == "Coach")
    }

    @Test func writerOnlyRewritesChangedFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wire-writer-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = [GeneratedFile(name: "A.swift", contents: "let a = 1\n"), GeneratedFile(name: "B.swift", contents: "let b = 2\n")]
        #expect(try GeneratedFileWriter.writeChanged(files, to: directory) == ["A.swift", "B.swift"])
        let before = try FileManager.default.attributesOfItem(atPath: directory + "/A.swift")[.modificationDate] as? Date
        #expect(try GeneratedFileWriter.writeChanged(files, to: directory) == [])
        var changed = files
        changed[1].contents = "let b = 3\n"
        #expect(try GeneratedFileWriter.writeChanged(changed, to: directory) == ["B.swift"])
        let after = try FileManager.default.attributesOfItem(atPath: directory + "/A.swift")[.modificationDate] as? Date
        #expect(before == after)
        #expect(FileManager.default.contents(atPath: directory + "/B.swift") == Data("let b = 3\n".utf8))
    }
}
