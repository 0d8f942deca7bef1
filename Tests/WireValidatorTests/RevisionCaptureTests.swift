import Foundation
import Testing
import WireTestSupport

/// `wire validate` on a session of Clawline's May 2026 revision: the capture written in the order
/// the protocol author's provider sends (pairing with `pair_pending`, then `auth_result`,
/// `stream_snapshot`, `session_info`, the replay, `sync_complete`, a chat turn), and broken copies
/// of it, each failing at the line it breaks.
@Suite struct RevisionCaptureTests {
    static let spec = "Spec/clawline-revisions/2026-05.yaml"
    static let capture = "Examples/captures/clawline-2026-05-session.jsonl"

    static func lines() throws -> [String] {
        let text = try String(contentsOf: Golden.repositoryRoot().appendingPathComponent(capture), encoding: .utf8)
        return text.split(separator: "\n").map(String.init)
    }

    /// Validates capture lines from standard input; returns the exit status and the finding lines.
    static func validate(_ lines: [String]) async throws -> (status: Int32, findings: [String]) {
        let run = try await WireTool.run(["validate", "--spec", spec, "-"], input: Data((lines.joined(separator: "\n") + "\n").utf8))
        return (run.status, run.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("<stdin>:") })
    }

    @Test func theSessionPasses() async throws {
        let run = try await WireTool.run(["validate", "--spec", Self.spec, Self.capture])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.hasPrefix("2 sessions, 22 frames"))
        #expect(run.stdout.hasSuffix("0 errors, 0 warnings\n"))
    }

    @Test func typedMapKeysAreCheckedAtTheKey() async throws {
        var lines = try Self.lines()
        lines[3] = lines[3].replacingOccurrences(
            of: #""replayCursorsBySessionKey":{"agent:main:clawline:kaywood:main":"s_7a0c9e4e-2f55-4c1b-9d0e-3b7f0e1d2c3b"}"#,
            with: #""replayCursorsBySessionKey":{"":"s_7a0c9e4e-2f55-4c1b-9d0e-3b7f0e1d2c3b","agent:main:main":"x_1"}"#)
        let (status, findings) = try await Self.validate(lines)
        #expect(status == 1)
        #expect(
            findings == [
                #"<stdin>:4: error: client auth: $.replayCursorsBySessionKey[""]~: must not be empty [invalid_message]"#,
                #"<stdin>:4: error: client auth: $.replayCursorsBySessionKey["agent:main:main"]: must start with 's_', found "x_1" "#
                    + "[invalid_message]",
            ])
    }

    @Test func sessionInfoBeforeTheSnapshotIsOutOfOrder() async throws {
        var lines = try Self.lines()
        lines.swapAt(5, 6)
        let (status, findings) = try await Self.validate(lines)
        #expect(status == 1)
        #expect(
            findings.first
                == "<stdin>:6: error: server session_info: not allowed in phase 'awaiting_snapshot', where the server may send stream_snapshot, "
                + "error [phase]")
    }

    @Test func liveFramesWaitForSyncComplete() async throws {
        var lines = try Self.lines()
        lines.remove(at: 9)  // sync_complete
        let (status, findings) = try await Self.validate(lines)
        #expect(status == 1)
        #expect(
            findings.first
                == "<stdin>:13: error: server stream_tail_state: not allowed in phase 'replaying', where the server may send message, ack, "
                + "error, sync_complete [phase]")
    }

    @Test func pairPendingIsNotFinalButOtherFailuresAre() async throws {
        var lines = try Self.lines()
        lines[1] = lines[1].replacingOccurrences(of: "pair_pending", with: "pair_denied")
        let (status, findings) = try await Self.validate(lines)
        #expect(status == 1)
        #expect(findings == ["<stdin>:3: error: server pair_result: not allowed in phase 'closed', where the server may send nothing [phase]"])
    }

    @Test func anUnknownEventKindIsKeptWithAWarning() async throws {
        var lines = try Self.lines()
        lines[14] = lines[14].replacingOccurrences(of: #""event":"activity""#, with: #""event":"typing_hint""#)
        let (status, findings) = try await Self.validate(lines)
        #expect(status == 0)
        #expect(
            findings == [
                #"<stdin>:15: warning: server event: $.event: "typing_hint" is not a known event case; it is kept as unknown [invalid_message]"#
            ])
    }
}
