import Foundation
import Testing
import WireRuntime
import WireTestSupport

/// The Wormhole protocol (seed 004) generated from Spec/examples/wormhole.yaml replaces the seed's
/// hand-written Message.swift: snake_case on the wire, camelCase in Swift, ISO-8601 dates as `Date`.
@Suite struct WormholeProtocolTests {
    static let frames = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Frames")

    @Test(arguments: GoldenFrames.files(frames, "client", "valid")) func validClient(_ file: URL) throws {
        try GoldenFrames.checkValid(file, ClientFrame.self)
    }
    @Test(arguments: GoldenFrames.files(frames, "server", "valid")) func validServer(_ file: URL) throws {
        try GoldenFrames.checkValid(file, ServerFrame.self)
    }
    @Test(arguments: GoldenFrames.files(frames, "client", "invalid")) func invalidClient(_ file: URL) throws {
        try GoldenFrames.checkInvalid(file, ClientFrame.self)
    }
    @Test(arguments: GoldenFrames.files(frames, "server", "invalid")) func invalidServer(_ file: URL) throws {
        try GoldenFrames.checkInvalid(file, ServerFrame.self)
    }

    @Test func theSeedsWelcomeLiteral() throws {
        let result = ServerFrame.decode(text: #"{"type":"welcome","server_version":"1.0.0","machine_name":"test","sessions":[]}"#)
        #expect(result.frame == .welcome(Welcome(serverVersion: "1.0.0", machineName: "test", sessions: [])))
    }

    @Test func sessionsWithStatesDatesAndNullableIds() throws {
        let text = try String(contentsOf: Self.frames.appendingPathComponent("server/valid/welcome.sessions.json"), encoding: .utf8)
        guard case .decoded(.welcome(let welcome), _) = ServerFrame.decode(text: text) else {
            Issue.record("expected a welcome")
            return
        }
        #expect(welcome.sessions.map(\.state) == [.awaitingApproval, .idle])
        #expect(welcome.sessions[0].lastActivity == .value(Date(timeIntervalSince1970: 1_704_708_000)))
        #expect(welcome.sessions[1].claudeSessionId == .null && welcome.sessions[1].lastActivity == .null)
        #expect(welcome.sessions[0].costUsd == 0.42)
    }

    @Test func sdkMessagesKeepEveryField() throws {
        let text = try String(contentsOf: Self.frames.appendingPathComponent("server/valid/event.result.json"), encoding: .utf8)
        guard case .decoded(.event(let event), _) = ServerFrame.decode(text: text) else {
            Issue.record("expected an event")
            return
        }
        #expect(event.message.type == "result" && event.message.subtype == "success")
        #expect(event.message.additionalFields == ["total_cost_usd": 0.0123, "num_turns": 2, "is_error": false])
        #expect(event.timestamp == Date(timeIntervalSince1970: 1_704_708_009.25))
        #expect(ServerFrame.event(event).encodedText() == text)
    }

    @Test func clientFramesAsTheSeedBuildsThem() {
        #expect(ClientFrame.subscribe(Subscribe(sessions: .all("*"))).encodedText() == #"{"sessions":"*","type":"subscribe"}"#)
        #expect(ClientFrame.subscribe(Subscribe(sessions: .names(["api"]))).encodedText() == #"{"sessions":["api"],"type":"subscribe"}"#)
        #expect(
            ClientFrame.permissionResponse(PermissionResponse(requestId: "r1", decision: .deny)).encodedText()
                == #"{"decision":"deny","request_id":"r1","type":"permission_response"}"#)
        #expect(
            ClientFrame.sync(Sync(session: "api", lastSeenSequence: 7)).encodedText() == #"{"last_seen_sequence":7,"session":"api","type":"sync"}"#)
        #expect(ClientFrame.control(Control(session: "api", action: .compact)).validate().isEmpty)
        #expect(Wormhole.defaultPort == 7117 && Wormhole.transportPath == "/ws")
    }
}
