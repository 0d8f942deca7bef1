import Foundation
import Testing
import WireCodegen
import WireSpec
import WireTestSupport

@testable import WireImport

/// Our own specs exported with `wire schema --format asyncapi` and imported back: the same frames
/// in each direction, with the same fields.
@Suite struct AsyncAPIRoundTripTests {
    static let specs = ["Spec/clawline.yaml", "Spec/examples/wormhole.yaml", "Spec/examples/coachme.yaml", "Spec/clawline-revisions/2026-05.yaml"]

    @Test("Export then import keeps every frame and its fields", arguments: specs)
    func roundTrip(_ path: String) throws {
        let original = try SpecLoader.check(contentsOf: Golden.repositoryRoot().appendingPathComponent(path).path).get()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("export-\(UUID().uuidString).json")
        try Data(AsyncAPIGenerator.document(for: original).utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = AsyncAPIImporter.importDocument(atPath: file.path, options: .init(name: original.name))
        let text = try #require(result.spec)
        let checked = SpecLoader.check(yaml: text, file: "roundtrip.yaml")
        let imported = try #require(checked.spec, "\(checked.diagnostics.prefix(5))")
        #expect(imported.tagField == original.tagField)
        #expect(Set(imported.errorCodes.map(\.code)) == Set(original.errorCodes.map(\.code)))
        for direction in Direction.allCases {
            #expect(imported.messages(direction).map(\.tag).sorted() == original.messages(direction).map(\.tag).sorted(), "\(direction)")
            for message in original.messages(direction) {
                guard let back = imported.messages(direction).first(where: { $0.tag == message.tag }) else { continue }
                #expect(Set(back.shape.fields.map(\.name)) == Set(message.shape.fields.map(\.name)), "\(direction) \(message.tag)")
                #expect(back.shape.fields.filter(\.required).map(\.name).sorted() == message.shape.fields.filter(\.required).map(\.name).sorted())
            }
        }
        let errors = result.diagnostics.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors)")
    }
}
