import Foundation
import Testing
import WireRuntime
import WireSpec
import WireTestSupport
import WireValidator

@testable import WireProbe

/// The probe's cases for maps with typed keys (`map<K, V>`): a frame per rule of the key's type,
/// of the value's type and of the map's own size, each breaking that rule alone, at the key.
@Suite struct ProbeMapCaseTests {
    static func spec(_ path: String) throws -> ProtocolSpec {
        try SpecLoader.check(contentsOf: Golden.repositoryRoot().appendingPathComponent(path).path).get()
    }

    /// The errors the spec's own engine finds in `frame`, as `rule at path`.
    static func errors(_ frame: String, _ spec: ProtocolSpec) -> [String] {
        guard case .checked(_, let issues) = FrameValidator(spec: spec).check(Array(frame.utf8), direction: .client) else { return ["not checked"] }
        return issues.errors.map { "\($0.rule) at \($0.path)" }
    }

    @Test("A key that breaks its type's rule is a case of its own, found at the key")
    func brokenKeys() throws {
        let spec = try Self.spec("Tests/Fixtures/everything.yaml")
        let plan = ProbePlan(spec: spec, seed: 7, positiveCount: 1, reachable: ["open"])
        let cases = Dictionary(uniqueKeysWithValues: plan.cases.map { ($0.name, $0) })
        // Slug: pattern [a-z0-9-]+, 2 to 20 characters; Color: an enum.
        for (name, rule) in [
            ("post.tallies key pattern", "pattern"), ("post.tallies key minLength", "minLength"), ("post.tallies key maxLength", "maxLength"),
            ("post.palette key enum", "enum"),
        ] {
            let probeCase = try #require(cases[name], "no case \(name); gaps: \(plan.gaps.map(\.name))")
            #expect(probeCase.rule.hasPrefix("each key of"))
            let found = Self.errors(probeCase.frames[0], spec)
            #expect(found.count == 1, "\(name): \(found)")
            // At the key: `$.tallies["!probe!"]~`, or `$.tallies.a~` for a key that is a plain name.
            let field = name.split(separator: " ")[0].split(separator: ".")[1]
            #expect(found.first?.hasPrefix("\(rule) at $.\(field)") == true, "\(name): \(found)")
            #expect(found.first?.hasSuffix("~") == true, "\(name) is reported at the key: \(found)")
            #expect(probeCase.expected?.code == "bad_frame", "post's violations answer bad_frame")
        }
    }

    @Test("The map's size and its values are cases too, each found in its entry")
    func sizesAndValues() throws {
        let spec = try Self.spec("Tests/Fixtures/everything.yaml")
        let plan = ProbePlan(spec: spec, seed: 7, positiveCount: 1, reachable: ["open"])
        let names = Set(plan.cases.map(\.name))
        #expect(names.contains("post.tallies maxItems"))
        #expect(names.contains("post.scores minItems"))
        #expect(names.contains("post.scores value type"))
        #expect(names.contains("post.palette value type"))
        #expect(names.contains("post.tallies value minimum"))
        #expect(!plan.gaps.contains { $0.name.hasPrefix("post.tallies") || $0.name.hasPrefix("post.palette") }, "\(plan.gaps)")
        let values = plan.cases.filter { $0.name.hasPrefix("post.tallies value") || $0.name.hasPrefix("post.palette value") }
        #expect(values.count >= 3)
        for probeCase in values {
            let field = probeCase.name.split(separator: " ")[0].split(separator: ".")[1]
            let found = Self.errors(probeCase.frames[0], spec)
            // In the entry (`$.tallies.a`, `$.tallies["x y"]`), not at the map.
            #expect(found.count == 1 && found[0].contains(" at $.\(field)") && !found[0].hasSuffix(" at $.\(field)"), "\(probeCase.name): \(found)")
        }
    }

    @Test("The fields of a map's object values are walked like a nested object's")
    func objectValues() throws {
        let yaml = """
            protocol: {name: maps, title: Maps, version: 1}
            transport: {kind: websocket, path: /ws}
            types:
              Key: {type: string, pattern: "k[0-9]+", maxLength: 4}
              Entry: {fields: {count: {type: integer, minimum: 1}, label: {type: string, optional: true, maxLength: 3}}}
            errors:
              bad: {description: A bad frame.}
            validation: {errorCode: bad}
            messages:
              client:
                put:
                  fields: {entries: "map<Key, Entry>"}
                  examples: [{type: put, entries: {k1: {count: 2}}}]
              server:
                ok: {fields: {n: integer}}
            """
        let spec = try SpecLoader.check(yaml: yaml, file: "maps.yaml").get()
        let plan = ProbePlan(spec: spec, seed: 3, positiveCount: 1)
        let cases = Dictionary(uniqueKeysWithValues: plan.cases.map { ($0.name, $0) })
        for (name, path) in [
            ("put.entries.k1.count minimum", "minimum at $.entries.k1.count"), ("put.entries.k1.count required", "required at $.entries.k1.count"),
            ("put.entries.k1.label maxLength", "maxLength at $.entries.k1.label"), ("put.entries key pattern", "pattern at $.entries"),
        ] {
            let probeCase = try #require(cases[name], "no case \(name) in \(cases.keys.sorted())")
            let found = Self.errors(probeCase.frames[0], spec)
            #expect(found.count == 1 && found[0].hasPrefix(path), "\(name): \(found)")
        }
    }

    @Test("The May 2026 revision: auth's replay cursors get a case per rule of SessionKey")
    func theMayRevision() throws {
        let spec = try Self.spec("Spec/clawline-revisions/2026-05.yaml")
        let plan = ProbePlan(spec: spec, seed: 7, positiveCount: 1)
        let keyCases = plan.cases.filter { $0.name.hasPrefix("auth.replayCursorsBySessionKey key ") }
        #expect(!keyCases.isEmpty, "gaps: \(plan.gaps.filter { $0.name.contains("replayCursors") }.map { "\($0.name): \($0.reason)" })")
        for probeCase in keyCases {
            let found = Self.errors(probeCase.frames[0], spec)
            #expect(found.count == 1 && found[0].contains("$.replayCursorsBySessionKey[\""), "\(probeCase.name): \(found)")
        }
        #expect(plan.cases.contains { $0.name == "auth.replayCursorsBySessionKey value prefix" })
    }
}
