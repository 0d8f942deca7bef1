import Foundation
import Testing
import WireCodegen
import WireSpec
import WireTestSupport

/// The exported JSON Schemas and AsyncAPI documents are golden files. For Spec/clawline.yaml they
/// are the published copies in schemas/, so the published schemas can never drift from the spec.
/// Refresh with `UPDATE_GOLDEN=1 swift test`.
@Suite struct SchemaGoldenTests {
    static let root = Golden.repositoryRoot()

    static func load(_ path: String) throws -> ProtocolSpec {
        var spec = try SpecLoader.check(contentsOf: root.appendingPathComponent(path).path).get()
        spec.sourceFile = path
        return spec
    }

    @Test(arguments: [("Spec/clawline.yaml", "schemas"), ("Tests/Fixtures/everything.yaml", "Tests/WireCodegenTests/Golden/Everything")])
    func exportedSchemasMatch(_ specPath: String, _ directory: String) throws {
        let spec = try Self.load(specPath)
        let base = Self.root.appendingPathComponent(directory)
        for direction in Direction.allCases {
            let name = "\(spec.name).\(direction.rawValue).schema.json"
            Golden.check(JSONSchemaGenerator.schema(for: spec, direction: direction, id: name), against: base.appendingPathComponent(name).path)
        }
        Golden.check(AsyncAPIGenerator.document(for: spec), against: base.appendingPathComponent("\(spec.name).asyncapi.json").path)
    }

    @Test func schemasAreValidJSONWithOneFramePerMessage() throws {
        let spec = try Self.load("Spec/clawline.yaml")
        for direction in Direction.allCases {
            let text = JSONSchemaGenerator.schema(for: spec, direction: direction)
            let schema = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let oneOf = try #require(schema["oneOf"] as? [[String: String]])
            #expect(oneOf.map { $0["$ref"] ?? "" } == spec.messages(direction).map { "#/$defs/\(direction.rawValue)-\($0.tag)" })
            let defs = try #require(schema["$defs"] as? [String: Any])
            for reference in text.components(separatedBy: "\"#/$defs/").dropFirst() {
                let name = String(reference.prefix { $0 != "\"" })
                #expect(defs[name] != nil, "dangling reference #/$defs/\(name)")
            }
        }
    }
}
