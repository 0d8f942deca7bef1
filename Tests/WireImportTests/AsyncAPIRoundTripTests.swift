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
        // The tables AsyncAPI has no place for, carried by the export's x- extensions.
        #expect(imported.rateLimits.map(\.name) == original.rateLimits.map(\.name))
        for limit in original.rateLimits {
            guard let back = imported.rateLimits.first(where: { $0.name == limit.name }) else { continue }
            #expect(back.limit == limit.limit && back.windowMilliseconds == limit.windowMilliseconds && back.scope == limit.scope, "\(limit.name)")
            #expect(Self.counted(back.counts) == Self.counted(limit.counts), "\(limit.name)")
            let (was, now) = (limit.answer.map(original.resolved), back.answer.map(imported.resolved))
            #expect(was?.code == now?.code && was?.closesConnection == now?.closesConnection && was?.closeCode == now?.closeCode, "\(limit.name)")
        }
        #expect(imported.constants.map(\.name) == original.constants.map(\.name))
        for constant in original.constants {
            let back = imported.constants.first { $0.name == constant.name }
            #expect(back?.kind == constant.kind && back?.value == constant.value && back?.providerLimit == constant.providerLimit, "\(constant.name)")
        }
        let errors = result.diagnostics.filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors)")
    }

    static func counted(_ counts: RateLimit.Counted) -> [String] {
        switch counts {
        case .frames(let frames): frames.map(\.description)
        case .violations(let codes): codes
        }
    }
}
