import Foundation
import Testing
import WireSpec
import WireTestSupport

@testable import WireDiff

/// `wire diff`: one golden pair of specs per rule, the real spec against itself and against a
/// copy with realistic edits, the output formats, the verdicts and the command's git-ref form.
@Suite struct SpecDiffTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let root = Golden.repositoryRoot()

    static var rules: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: golden.path)) ?? []).filter { !$0.contains(".") }.sorted()
    }

    static func load(_ yaml: String, file: String) throws -> ProtocolSpec {
        let result = SpecLoader.check(yaml: yaml, file: file)
        #expect(result.diagnostics.map(\.description) == [])
        return try #require(result.spec)
    }

    /// Each folder holds `old.yaml` and `new.yaml` that differ by one edit, and the findings in `expected.txt`.
    @Test(arguments: rules)
    func everyRuleHasAGoldenPair(_ rule: String) async throws {
        let folder = Self.golden.appendingPathComponent(rule)
        let old = try Self.load(String(contentsOf: folder.appendingPathComponent("old.yaml"), encoding: .utf8), file: "old.yaml")
        let new = try Self.load(String(contentsOf: folder.appendingPathComponent("new.yaml"), encoding: .utf8), file: "new.yaml")
        let changes = SpecDiff.changes(from: old, to: new)
        #expect(!changes.isEmpty, "an edit is found")
        Golden.check(
            ChangeReport.render(changes, format: .text, old: "old.yaml", new: "new.yaml"), against: folder.appendingPathComponent("expected.txt").path
        )
    }

    static let history = [
        ("Spec/clawline.yaml", "Spec/clawline-revisions/2026-01.yaml", "clawline-seed-to-2026-01.txt"),
        ("Spec/clawline-revisions/2026-01.yaml", "Spec/clawline-revisions/2026-05.yaml", "clawline-2026-01-to-2026-05.txt"),
        ("Spec/clawline.yaml", "Spec/clawline-revisions/2026-05.yaml", "clawline-seed-to-2026-05.txt"),
    ]

    /// Clawline's real history: the seed contract, the January and the May 2026 revisions. The
    /// reports are golden, and the findings the reference sheet states are checked one by one.
    @Test(arguments: history)
    func theClawlineHistory(_ old: String, _ new: String, _ golden: String) async throws {
        // Loaded under their paths in the repository, so the report's locations are the same in any checkout.
        let before = try Self.load(String(contentsOf: Self.root.appendingPathComponent(old), encoding: .utf8), file: old)
        let after = try Self.load(String(contentsOf: Self.root.appendingPathComponent(new), encoding: .utf8), file: new)
        let changes = SpecDiff.changes(from: before, to: after)
        Golden.check(ChangeReport.render(changes, format: .text, old: old, new: new), against: Self.golden.appendingPathComponent(golden).path)
        let version = try #require(changes.first { $0.isVersionFinding }, "every step broke something while the version stayed 1")
        #expect(version.summary.hasPrefix("is still 1 after"))
        func finding(_ text: String) -> SpecChange? { changes.first { "\($0.subject) \($0.summary)".contains(text) } }
        if old == "Spec/clawline.yaml" {
            // pair_pending breaks seed clients, which treat any failure as final; seed providers never send it.
            let pending = try #require(finding("reason is pair_pending no longer ends the connection"))
            #expect(pending.oldClientsWithNewServer == .breaks && pending.oldServersWithNewClient == .compatible)
            // New server frames are harmless to seed clients, which ignore types they do not know.
            #expect(
                changes.filter { $0.subject == "the message" && $0.kind == .added && $0.group.hasPrefix("server") }.allSatisfy {
                    $0.oldClientsWithNewServer == .compatible
                })
        }
        if new.hasSuffix("2026-05.yaml") {
            // A May client stalls in its replay against a provider that never sends sync_complete.
            let stall = try #require(finding("left only on server sync_complete"))
            #expect(stall.oldServersWithNewClient == .breaks && stall.oldClientsWithNewServer == .compatible)
            // stream_read and interactive-callback are unknown types to an older provider.
            for tag in ["stream_read", "interactive-callback"] {
                let added = try #require(changes.first { $0.group == "client message \(tag)" && $0.kind == .added })
                #expect(added.oldServersWithNewClient == .breaks)
            }
            let frameCap = try #require(changes.first { $0.subject == "'maxFrameBytes'" })
            #expect(frameCap.new == "320KiB")
        }
    }

    @Test func theClawlineSpecAgainstItselfHasNoChanges() async throws {
        let spec = try SpecLoader.check(contentsOf: Self.root.appendingPathComponent("Spec/clawline.yaml").path).get()
        #expect(SpecDiff.changes(from: spec, to: spec).isEmpty)
    }

    /// Edits a team could make in one pull request, with the findings in `Golden/clawline-edits.*`.
    @Test func realisticEditsToTheClawlineSpec() async throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("Spec/clawline.yaml"), encoding: .utf8)
        var edited = text
        for (old, new) in [
            ("          maxBytes: 65536\n", "          maxBytes: 32768\n"),  // client content limit lowered
            ("  ack:\n      description: Acknowledges", "  presence:\n      fields: {online: boolean}\n    ack:\n      description: Acknowledges"),
            (
                "    duration: 30s\n    description: How often the server sends a WebSocket ping.",
                "    duration: 20s\n    description: How often the server sends a WebSocket ping."
            ),
            (
                "      pair_denied: An admin denied the request.\n",
                "      pair_denied: An admin denied the request.\n      pair_expired: The token expired before use.\n"
            ),
            (
                "    limit: 2\n    window: 1s\n    scope: device\n    answer: {error: rate_limited, close: false}\n"
                    + "    clientAction: Drop extra typing updates",
                "    limit: 1\n    window: 1s\n    scope: device\n    answer: {error: rate_limited, close: false}\n"
                    + "    clientAction: Drop extra typing updates"
            ),
        ] {
            #expect(edited.contains(old), "the edit applies: \(old.prefix(40))")
            edited = edited.replacingOccurrences(of: old, with: new)
        }
        let changes = SpecDiff.changes(from: try Self.load(text, file: "old/clawline.yaml"), to: try Self.load(edited, file: "new/clawline.yaml"))
        for format in ChangeReport.Format.allCases {
            let output = ChangeReport.render(changes, format: format, old: "old/clawline.yaml", new: "new/clawline.yaml")
            Golden.check(
                output,
                against: Self.golden.appendingPathComponent(
                    "clawline-edits." + ["text": "txt", "json": "jsonl", "markdown": "md"][format.rawValue, default: "txt"]
                ).path)
        }
        #expect(changes.contains { $0.severity == .breaking && $0.subject == "the version" }, "breaking without a version bump is a finding")
    }

    @Test func directionDecidesWhoBreaks() {
        #expect(Effect.tightens.verdicts([.client]) == (oldClients: .breaks, oldServers: .compatible))
        #expect(Effect.loosens.verdicts([.client]) == (oldClients: .compatible, oldServers: .breaks))
        #expect(Effect.tightens.verdicts([.server]) == (oldClients: .compatible, oldServers: .breaks))
        #expect(Effect.loosens.verdicts([.server]) == (oldClients: .breaks, oldServers: .compatible))
        #expect(Effect.replaces.verdicts([.client]) == (oldClients: .breaks, oldServers: .breaks))
        #expect(Effect.changesBehaviour.verdicts([]) == (oldClients: .mayBreak, oldServers: .mayBreak))
        #expect(Effect.none.verdicts([.client, .server]) == (oldClients: .compatible, oldServers: .compatible))
    }

    @Test func theCommandsExitStatus() async throws {
        let pair = "Tests/WireDiffTests/Golden/max-tightened-client"
        let breaking = try await WireTool.run(["diff", "\(pair)/old.yaml", "\(pair)/new.yaml"])
        #expect(breaking.status == 1 && breaking.stdout.contains("breaking: field 'name' maxBytes tightened (64 → 32)"))
        #expect(try await WireTool.run(["diff", "\(pair)/old.yaml", "\(pair)/new.yaml", "--fail-on", "none"]).status == 0)
        let info = "Tests/WireDiffTests/Golden/description-only"
        #expect(try await WireTool.run(["diff", "\(info)/old.yaml", "\(info)/new.yaml", "--fail-on", "warning"]).status == 0)
        let missing = try await WireTool.run(["diff", "no/such.yaml", "\(pair)/new.yaml"])
        #expect(missing.status == 2 && missing.stderr == "error: cannot read spec 'no/such.yaml': no such file\n")
    }

    @Test func theDocsEndWithAChangelogSinceAnEarlierSpec() async throws {
        let pair = "Tests/WireDiffTests/Golden/enum-value-added-closed"
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("wire-since-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try await WireTool.run(["docs", "\(pair)/new.yaml", "--format", "markdown", "--output", output.path, "--since", "\(pair)/old.yaml"])
        #expect(run.status == 0, "\(run.stderr)")
        let text = try String(contentsOf: output.appendingPathComponent("demo.md"), encoding: .utf8)
        #expect(text.contains("## Changes since \(pair)/old.yaml"))
        #expect(text.contains("2 breaking, 0 warnings, 0 info."))
        #expect(text.contains("**The version is still 1 after 1 breaking change; raise 'version'.**"))
        // Sorted by whom it breaks: a closed enum's new value breaks providers written to the old spec.
        #expect(text.contains("### What breaks providers written to \(pair)/old.yaml\n\n- type Mood: value 'calm' added\n"))
        #expect(!text.contains("### What breaks clients written to"))
    }

    /// `GIT-REF:PATH` is read with `git show`, as in a pull request: `wire diff main:spec.yaml spec.yaml`.
    @Test func theGitRefForm() async throws {
        let repository = FileManager.default.temporaryDirectory.appendingPathComponent("wire-diff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: repository) }
        func git(_ arguments: String...) async throws {
            let run = try await ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/env"), ["git", "-c", "user.name=test", "-c", "user.email=test@example.com"] + arguments,
                in: repository)
            #expect(run.status == 0, "git \(arguments.joined(separator: " ")): \(run.stderr)")
        }
        let pair = Self.golden.appendingPathComponent("field-made-required")
        let spec = repository.appendingPathComponent("spec.yaml")
        try await git("init", "-q", "-b", "main")
        try FileManager.default.copyItem(at: pair.appendingPathComponent("old.yaml"), to: spec)
        try await git("add", "spec.yaml")
        try await git("commit", "-q", "-m", "old")
        try FileManager.default.removeItem(at: spec)
        try FileManager.default.copyItem(at: pair.appendingPathComponent("new.yaml"), to: spec)
        let run = try await WireTool.run(["diff", "main:spec.yaml", "spec.yaml", "--format", "json"], in: repository)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.contains(#""group":"client message hello""#) && run.stdout.contains(#""summary":"made required""#))
        let unknown = try await WireTool.run(["diff", "nosuchbranch:spec.yaml", "spec.yaml"], in: repository)
        #expect(unknown.status == 2 && unknown.stderr.contains("git show nosuchbranch:spec.yaml failed"))
    }
}
