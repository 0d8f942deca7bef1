import Clawline2026Protocol
import Foundation
import Testing

/// The Swift generated from Clawline's May 2026 revision decodes, validates and dispatches the
/// frames of a session written in that protocol's style (the SDK's
/// Examples/captures/clawline-2026-05-session.jsonl).
@Suite struct Clawline2026Tests {
    /// The capture's frames, with who sent each.
    static func capture() throws -> [(direction: String, text: String)] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../captures/clawline-2026-05-session.jsonl")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        return try lines.map { line in
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let frame = try JSONSerialization.data(withJSONObject: try #require(record["frame"]), options: [.sortedKeys])
            return (try #require(record["dir"] as? String), String(decoding: frame, as: UTF8.self))
        }
    }

    actor Recorder: ServerFrameHandler {
        var calls: [String] = []
        func handlePairResult(_ message: PairResult) async throws { calls.append("pair_result") }
        func handleAuthResult(_ message: AuthResult) async throws { calls.append("auth_result") }
        func handleStreamSnapshot(_ message: StreamSnapshot) async throws { calls.append("stream_snapshot \(message.streams.count)") }
        func handleStreamCreated(_ message: StreamCreated) async throws { calls.append("stream_created") }
        func handleStreamUpdated(_ message: StreamUpdated) async throws { calls.append("stream_updated") }
        func handleStreamDeleted(_ message: StreamDeleted) async throws { calls.append("stream_deleted") }
        func handleSessionInfo(_ message: SessionInfo) async throws { calls.append("session_info") }
        func handleSyncComplete(_ message: SyncComplete) async throws { calls.append("sync_complete") }
        func handleStreamReadState(_ message: StreamReadState) async throws { calls.append("stream_read_state") }
        func handleStreamTailState(_ message: StreamTailState) async throws { calls.append("stream_tail_state") }
        func handleMessage(_ message: ServerMessage) async throws { calls.append("message \(message.role)") }
        func handleAck(_ message: Ack) async throws { calls.append("ack") }
        func handleError(_ message: ErrorMessage) async throws { calls.append("error") }
        func handleEvent(_ message: Event) async throws {
            switch message {
            case .activity(let event): calls.append("activity \(event.payload.isActive)")
            case .promptTurnState(let event): calls.append("prompt_turn_state \(event.payload.state)")
            case .unknown(let tag, _): calls.append("event \(tag)")
            }
        }
        func handleAgentProgress(_ message: AgentProgress) async throws { calls.append("agent_progress \(message.state)") }
        func handleUnknownFrame(tag: String, json: JSONValue) async throws { calls.append("unknown \(tag)") }
    }

    @Test func everyFrameOfTheSessionDecodesAndDispatches() async throws {
        let recorder = Recorder()
        var clientTags: [String] = []
        for (direction, text) in try Self.capture() {
            if direction == "client" {
                let result = ClientFrame.decode(text: text)
                let frame = try #require(result.frame, "\(text): \(result.rejectionReason ?? "")")
                #expect(result.issues.isEmpty, "\(text)")
                clientTags.append(frame.tag)
            } else {
                let result = ServerFrame.decode(text: text)
                let frame = try #require(result.frame, "\(text): \(result.rejectionReason ?? "")")
                #expect(result.issues.isEmpty, "\(text)")
                try await frame.dispatch(to: recorder)
            }
        }
        #expect(clientTags == ["pair_request", "auth", "message", "stream_read"])
        #expect(
            await recorder.calls == [
                "pair_result", "pair_result", "auth_result", "stream_snapshot 1", "session_info", "message user", "message assistant",
                "sync_complete", "ack", "message user", "stream_tail_state", "activity true", "agent_progress running",
                "message assistant", "stream_tail_state", "activity false", "prompt_turn_state delivered", "stream_read_state",
            ])
    }

    @Test func typedMapsAndTheNonFinalPairResult() throws {
        let auth = try #require(
            ClientFrame.decode(
                text: #"{"type":"auth","protocolVersion":1,"token":"t","deviceId":"6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f","#
                    + #""replayCursorsBySessionKey":{"agent:main:main":"s_1"}}"#
            ).frame)
        guard case .auth(let frame) = auth else { throw CocoaError(.coderInvalidValue) }
        // The keys are session keys and the values event ids: the dictionary's types say so.
        let cursors: [SessionKey: ServerEventId]? = frame.replayCursorsBySessionKey
        #expect(cursors == ["agent:main:main": "s_1"])

        let pending = ServerFrame.decode(text: #"{"type":"pair_result","success":false,"reason":"pair_pending"}"#).frame
        #expect(pending == .pairResult(.failure(PairFailure(reason: .pairPending))))
        // The session rules know that pair_pending is not final.
        #expect(Clawline2026.sessionRules.transitions.first { $0.on == FrameKey(.server, "pair_result") }?.to == "unauthenticated")
    }

    @Test func brokenFramesFailAtTheirPath() {
        let badKey = ClientFrame.decode(
            text: #"{"type":"auth","protocolVersion":1,"token":"t","deviceId":"6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f","#
                + #""replayCursorsBySessionKey":{"":"s_1"}}"#)
        #expect(badKey.frame == nil)
        #expect(badKey.issues.map { "\($0.path) \($0.rule)" } == [#"$.replayCursorsBySessionKey[""]~ minLength"#])
        let missingKey = ServerFrame.decode(
            text: #"{"type":"message","id":"s_1","role":"assistant","content":"","timestamp":1,"streaming":false}"#)
        #expect(missingKey.issues.map { "\($0.path) \($0.rule)" } == ["$.sessionKey required"])
    }
}
