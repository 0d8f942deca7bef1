import Foundation
import Testing
import WireSpec
import WireTestSupport
import WireValidator

/// The session rules of the Clawline contract, each on a small inline capture: what the published
/// provider sends must pass, and each way of breaking a rule gives exactly the expected finding.
@Suite struct ContractSessionRuleTests {
    static let device = SessionRuleTests.device
    static let user = "user_3f2e1d0c-9b8a-4f6e-9d4c-3b2a1f0e9d8c"

    static func line(_ dir: String, _ ts: Int, _ frame: String) -> String { SessionRuleTests.line(dir, String(ts), frame) }

    static func validate(_ lines: [String]) throws -> [String] { try SessionRuleTests.validate(lines.joined(separator: "\n")) }

    static func auth(extra: String = "") -> [String] {
        [
            line("client", 1000, #"{"type":"auth","protocolVersion":1,"token":"t","deviceId":"\#(device)"}"#),
            line(
                "server", 1010,
                #"{"type":"auth_result","success":true,"userId":"\#(user)","sessionId":"s1","replayCount":0,"replayTruncated":false\#(extra)}"#),
        ]
    }

    static func message(_ id: String, _ content: String, attachments: String? = nil) -> String {
        #"{"type":"message","id":"\#(id)","content":"\#(content)""# + (attachments.map { #","attachments":\#($0)"# } ?? "") + "}"
    }

    static func snapshot(_ id: String, _ content: String, streaming: Bool, role: String = "assistant", extra: String = "") -> String {
        #"{"type":"message","id":"\#(id)","role":"\#(role)","content":"\#(content)","timestamp":1704672000000,"streaming":\#(streaming)\#(extra)}"#
    }

    @Test func theProviderStyleCaptureValidatesClean() throws {
        let url = Golden.repositoryRoot().appendingPathComponent("Examples/captures/clawline-provider-session.jsonl")
        #expect(try Self.validate([String(contentsOf: url, encoding: .utf8)]) == [])
    }

    @Test func aFrameAfterAFailedAuthenticationIsAnsweredAuthFailed() throws {
        let lines = [
            Self.line("client", 1000, #"{"type":"auth","protocolVersion":1,"token":"expired","deviceId":"\#(Self.device)"}"#),
            Self.line("server", 1010, #"{"type":"auth_result","success":false,"reason":"auth_failed"}"#),
            Self.line("client", 1020, Self.message("c_1", "hi")),
        ]
        #expect(
            try Self.validate(lines) == [
                "3: auth_failed not allowed in phase 'closed', where the client may send nothing"
            ])
    }

    @Test func adminGuardsWaitUntilAFrameSetsTheFlag() throws {
        let decision = Self.line("client", 2000, #"{"type":"pair_decision","deviceId":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","approve":false}"#)
        #expect(try Self.validate(Self.auth() + [decision]) == [], "without isAdmin the flag is unknown, so the guard does not fire")
        #expect(try Self.validate(Self.auth(extra: #","isAdmin":true"#) + [decision]) == [])
        #expect(
            try Self.validate(Self.auth(extra: #","isAdmin":false"#) + [decision]) == [
                "3: invalid_message only allowed while 'admin' is set (admin_decides)"
            ])
    }

    @Test func retriesCompareNormalizedValues() throws {
        let ack = Self.line("server", 9000, #"{"type":"ack","id":"c_1"}"#)
        for (first, second) in [(nil, "null"), (nil, "[]"), ("null", "[]"), ("[]", nil)] as [(String?, String?)] {
            let lines =
                Self.auth() + [
                    Self.line("client", 2000, Self.message("c_1", "hi", attachments: first)),
                    Self.line("client", 7000, Self.message("c_1", "hi", attachments: second)), ack,
                ]
            #expect(try Self.validate(lines) == [], "attachments \(first ?? "absent") and \(second ?? "absent") are equal")
        }
        func image(_ data: String) -> String { #"[{"type":"image","mimeType":"image/png","data":"\#(data)"}]"# }
        let padding =
            Self.auth() + [
                Self.line("client", 2000, Self.message("c_1", "hi", attachments: image("iVBORw0KGgo="))),
                Self.line("client", 7000, Self.message("c_1", "hi", attachments: image(#"iVBORw0K\nGgo"#))), ack,
            ]
        #expect(try Self.validate(padding) == [], "inline images compare by their decoded bytes")
        let escapedKey =
            Self.auth() + [
                Self.line("client", 2000, Self.message("c_1", "hi", attachments: image("iVBORw0KGgo="))),
                Self.line(
                    "client", 7000,
                    Self.message("c_1", "hi", attachments: #"[{"type":"image","mimeType":"image/png","d\u0061ta":"iVBORw0KGgo"}]"#)),
                ack,
            ]
        #expect(try Self.validate(escapedKey) == [], "a member's shape is found by its key's text, escaped or not")
        let escapedKeyChanged = escapedKey.map { $0.replacingOccurrences(of: #""iVBORw0KGgo"}"#, with: #""iVBORw0KGgA="}"#) }
        #expect(
            try Self.validate(escapedKeyChanged) == [
                #"4: invalid_message reuses 'id' "c_1" with a different content or attachments (client_message_retry)"#
            ])
        let changed =
            Self.auth() + [
                Self.line("client", 2000, Self.message("c_1", "hi", attachments: image("iVBORw0KGgo="))),
                Self.line("client", 7000, Self.message("c_1", "hi", attachments: image("iVBORw0KGgA="))), ack,
            ]
        #expect(
            try Self.validate(changed) == [
                #"4: invalid_message reuses 'id' "c_1" with a different content or attachments (client_message_retry)"#
            ])
    }

    @Test func streamingSnapshotsKeepTheirRoleAndAttachmentsAndGrow() throws {
        let start = Self.line("server", 2000, Self.snapshot("s_1", "Hi", streaming: true))
        let cases: [(String, String)] = [
            (Self.snapshot("s_1", "Hi there", streaming: true), ""),
            (
                Self.snapshot("s_1", "Ho there", streaming: true),
                #"4: server_event_stream 'content' of id "s_1" does not start with the text of the frame before; each frame must extend the "#
                    + #"previous one (server_event_stream)"#
            ),
            (
                Self.snapshot("s_1", "H", streaming: true),
                #"4: server_event_stream 'content' of id "s_1" is 1 bytes, shorter than the 2 of the frame before; each frame must extend the "#
                    + #"previous one (server_event_stream)"#
            ),
            (
                Self.snapshot("s_1", "Hi you", streaming: false, role: "user", extra: #","deviceId":"\#(Self.device)""#),
                #"4: server_event_stream reuses 'id' "s_1" with a different role or attachments (server_event_stream)"#
            ),
            (
                Self.snapshot(
                    "s_1", "Hi you", streaming: false, extra: #","attachments":[{"type":"asset","assetId":"a_7c9e6679-7425-40de-944b-e07fc1f90ae7"}]"#
                ),
                #"4: server_event_stream reuses 'id' "s_1" with a different role or attachments (server_event_stream)"#
            ),
        ]
        for (next, expected) in cases {
            #expect(try Self.validate(Self.auth() + [start, Self.line("server", 2100, next)]) == (expected.isEmpty ? [] : [expected]), "\(next)")
        }
    }

    /// Once a stream's final frame has passed, a later frame with its id is one violation: its
    /// content is not compared with the frames before (they are no longer remembered).
    @Test func aFrameAfterTheFinalOneIsOneViolation() throws {
        let lines =
            Self.auth() + [
                Self.line("server", 2000, Self.snapshot("s_1", "H", streaming: true)),
                Self.line("server", 2010, Self.snapshot("s_1", "Hi", streaming: false)),
                Self.line("server", 2020, Self.snapshot("s_1", "X", streaming: true)),
                Self.line("server", 2030, Self.snapshot("s_2", "Hello", streaming: false)),
                Self.line("server", 2040, Self.snapshot("s_2", "Hello", streaming: false)),
            ]
        #expect(
            try Self.validate(lines) == [
                #"5: server_event_stream repeats 'id' "s_1" after its final frame (server_event_stream)"#,
                #"7: server_event_stream repeats 'id' "s_2" after its final frame (server_event_stream)"#,
            ])
    }

    /// An `ack` and an `error` answer the same client message ids, which one entry per id
    /// remembers for both rules.
    @Test func anAckAndAnErrorBothNameOneClientMessage() throws {
        let lines =
            Self.auth() + [
                Self.line("client", 2000, Self.message("c_1", "hello")),
                Self.line("server", 2010, #"{"type":"ack","id":"c_1"}"#),
                Self.line("server", 2020, #"{"type":"error","code":"server_error","message":"failed","messageId":"c_1"}"#),
                Self.line("server", 2030, #"{"type":"ack","id":"c_2"}"#),
            ]
        #expect(
            try Self.validate(lines) == [#"6: ack_answers_message 'id' "c_2" answers no earlier client message (ack_answers_message)"#])
    }

    @Test func anErrorNamesAClientMessageSentEarlier() throws {
        let lines =
            Self.auth() + [
                Self.line("client", 2000, Self.message("c_1", "")),
                Self.line("server", 2010, #"{"type":"error","code":"invalid_message","message":"empty","messageId":"c_1"}"#),
                Self.line("server", 2020, #"{"type":"error","code":"server_error","message":"failed","messageId":"c_9"}"#),
                Self.line("server", 2030, #"{"type":"error","code":"rate_limited","message":"slow down"}"#),
            ]
        #expect(
            try Self.validate(lines) == [
                "3: invalid_message $.content: must not be empty",
                #"5: warning error_names_message 'messageId' "c_9" answers no client message on this connection; it is valid only if "#
                    + #"the client sent it on a connection this one replaced (error_names_message)"#,
            ], "a rejected message can be named; an id not sent here may come from the connection this one took over, which one capture cannot see")
    }

    @Test func theReplayComesBeforeAnyLiveFrame() throws {
        func replay(_ count: Int) -> String {
            #"{"type":"auth_result","success":true,"userId":"\#(Self.user)","sessionId":"s1","replayCount":\#(count),"replayTruncated":false}"#
        }
        let authFrame = Self.line(
            "client", 1000, #"{"type":"auth","protocolVersion":1,"token":"t","deviceId":"\#(Self.device)","lastMessageId":"s_0"}"#)
        let complete = [
            authFrame, Self.line("server", 1010, replay(2)),
            Self.line("client", 1015, Self.message("c_1", "sent during the replay")),
            Self.line("server", 1020, Self.snapshot("s_1", "one", streaming: false)),
            Self.line("server", 1030, Self.snapshot("s_2", "two", streaming: false)),
            Self.line("server", 1040, #"{"type":"ack","id":"c_1"}"#),
        ]
        #expect(try Self.validate(complete) == [], "client frames may interleave; the server's replay is whole")
        let interrupted = [
            authFrame, Self.line("server", 1010, replay(2)),
            Self.line("server", 1020, Self.snapshot("s_1", "one", streaming: false)),
            Self.line("server", 1030, #"{"type":"typing","role":"assistant","active":true}"#),
        ]
        #expect(
            try Self.validate(interrupted) == [
                "4: replay comes while 1 more server message frames (streaming false) of run 'replay' are due (replayCount in the server auth_result)"
            ])
        let partial = [authFrame, Self.line("server", 1010, replay(1)), Self.line("server", 1020, Self.snapshot("s_1", "on", streaming: true))]
        #expect(
            try Self.validate(partial) == [
                "3: replay comes while 1 more server message frames (streaming false) of run 'replay' are due (replayCount in the server auth_result)"
            ], "only finals are replayed")
        let short = [authFrame, Self.line("server", 1010, replay(3)), Self.line("server", 1020, Self.snapshot("s_1", "one", streaming: false))]
        #expect(
            try Self.validate(short) == [
                "end: warning replay the session ended 2 server message frames (streaming false) short of run 'replay'"
            ])
    }

    @Test func assistantTypingIsRateLimited() throws {
        let typing = #"{"type":"typing","role":"assistant","active":true}"#
        let lines = Self.auth() + [2000, 2300, 2600, 3700].map { Self.line("server", $0, typing) }
        #expect(
            try Self.validate(lines) == [
                "5: assistant_typing breaks the rate limit 'assistant_typing': more than 2 server typing frames within 1 s"
            ])
    }

    @Test func aBrokenAuthResultStillOpensTheSession() throws {
        let lines = [
            Self.line("client", 1000, #"{"type":"auth","protocolVersion":1,"token":"t","deviceId":"\#(Self.device)"}"#),
            Self.line(
                "server", 1010,
                #"{"type":"auth_result","success":true,"userId":"\#(Self.user)","sessionId":"","replayCount":0,"replayTruncated":false}"#),
            Self.line("client", 2000, Self.message("c_1", "hi")),
            Self.line("server", 2010, #"{"type":"ack","id":"c_1"}"#),
        ]
        #expect(
            try Self.validate(lines) == ["2: invalid_message $.sessionId: must not be empty"], "one bad frame, not a phase error on every later frame"
        )
    }
}
