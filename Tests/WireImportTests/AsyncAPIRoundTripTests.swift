import Foundation
import Testing
import WireCodegen
import WireDiff
import WireSpec
import WireTestSupport

@testable import WireImport

/// Our own specs exported with `wire schema --format asyncapi` and imported back: the same frames
/// in each direction, with the same fields, tables and session rules, and nothing `wire diff`
/// counts as a change on the wire; the import has no warning to give.
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
        // The session rules (x-session-rules) and the conditional rules (if/then), rule for rule.
        #expect(Self.sessionSummary(imported) == Self.sessionSummary(original))
        #expect(Self.conditionalRules(imported) == Self.conditionalRules(original))
        // The whole model: `wire diff` finds nothing that matters on the wire (at most a type
        // renamed, or a type no frame uses left out: information only).
        let changes = SpecDiff.changes(from: original, to: imported).filter { $0.severity > .info }
        #expect(changes.isEmpty, "\(changes.map { "\($0.group): \($0.subject) \($0.summary)" })")
        // Every example comes back, validates, and a broken copy is refused at the broken field.
        #expect(imported.messages.map(\.examples.count) == original.messages.map(\.examples.count))
        #expect(AsyncAPICorpusTests.checkExamples(of: imported) > 0, "\(path) has examples")
        let problems = result.diagnostics.filter { $0.severity != .note }
        #expect(problems.isEmpty, "\(problems)")
    }

    /// Every session rule, as a line without its description or location; answers resolved.
    static func sessionSummary(_ spec: ProtocolSpec) -> [String] {
        guard let session = spec.session else { return [] }
        func answer(_ answer: Answer?) -> String {
            guard let answer else { return "-" }
            let resolved = spec.resolved(answer)
            return "\(resolved.code ?? "none") close=\(resolved.closesConnection) \(resolved.closeCode.map(String.init) ?? "")"
        }
        var lines = session.flags.map { "flag \($0.name)" }
        lines += session.phases.map { phase in
            "phase \(phase.name) initial=\(phase.initial) client=\(phase.allowedClient) server=\(phase.allowedServer) "
                + "otherwise=\(answer(phase.otherwise)) \(phase.otherwiseFor.map { "\($0.tag): \(answer($0.answer))" })"
        }
        lines += session.transitions.map { transition in
            "on \(transition.on) from \(transition.from) when \(conditions(transition.when)) to \(transition.to) "
                + "set \(transition.set.map { "\($0.flag)=\($0.field)" }) close \(transition.closeCode.map(String.init) ?? "-")"
        }
        lines += session.guards.map { "guard \($0.name) \($0.frame) requires \($0.requires) \(answer($0.otherwise))" }
        lines += session.correlations.map { rule in
            "correlation \(rule.name) \(rule.frame).\(rule.field) answers \(rule.answers).\(rule.answersField) \(rule.scope) "
                + answer(rule.otherwise)
        }
        lines += session.uniqueness.map { rule in
            "unique \(rule.name) \(rule.frame).\(rule.key) same \(rule.sameFields) \(rule.comparison) grows \(rule.grows) "
                + "final \(conditions(rule.final)) \(answer(rule.otherwise))"
        }
        lines += session.runs.map { run in
            "run \(run.name) after \(run.after) when \(conditions(run.when)) count \(run.count) \(run.frame) each \(conditions(run.each))"
        }
        return lines
    }

    /// Every conditional rule of every message, as a line.
    static func conditionalRules(_ spec: ProtocolSpec) -> [String] {
        spec.messages.flatMap { message in
            message.shape.rules.compactMap { rule -> String? in
                guard case .conditional(let rule) = rule else { return nil }
                return "\(message.direction) \(message.tag) when \(conditions(rule.when)) require \(rule.require) forbid \(rule.forbid) "
                    + "then \(conditions(rule.then))"
            }
        }
    }

    static func conditions(_ conditions: [Condition]) -> String {
        conditions.map { "\($0.field)=\($0.values)" }.joined(separator: ",")
    }

    static func counted(_ counts: RateLimit.Counted) -> [String] {
        switch counts {
        case .frames(let frames): frames.map(\.description)
        case .violations(let codes): codes
        }
    }
}
