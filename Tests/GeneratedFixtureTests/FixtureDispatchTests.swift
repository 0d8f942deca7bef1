import Testing
import WireRuntime

/// The generated dispatcher routes each frame to its own handler method.
@Suite struct FixtureDispatchTests {
    actor Recorder: ServerFrameHandler {
        var calls: [String] = []
        func handleSame(_ message: ServerSame) async throws { calls.append("same \(message.fromServer)") }
        func handleUpdate(_ message: Update) async throws { calls.append("update \(message.level)") }
        func handlePing(_ message: Ping) async throws { calls.append("ping \(message.seq)") }
        func handleVerdict(_ message: Verdict) async throws {
            if case .accepted(let granted) = message { calls.append("accepted \(granted.token)") } else { calls.append("refused") }
        }
        func handleNotice(_ message: Notice) async throws {
            switch message {
            case .grant(let granted): calls.append("grant \(granted.token)")
            case .unknown(let tag, _): calls.append("notice \(tag)")
            }
        }
        func handleUnknownFrame(tag: String, json: JSONValue) async throws { calls.append("unknown \(tag)") }
    }

    @Test func routesEveryFrame() async throws {
        let recorder = Recorder()
        for text in [
            #"{"kind":"ping","seq":1}"#, #"{"kind":"same","from_server":true}"#, #"{"kind":"gossip"}"#, FixtureDecodingTests.update,
            #"{"kind":"verdict","accepted":true,"token":"t"}"#, #"{"kind":"notice","topic":"grant","token":"g"}"#,
            #"{"kind":"notice","topic":"later","whatever":1}"#,
        ] {
            let frame = try #require(ServerFrame.decode(text: text).frame)
            try await frame.dispatch(to: recorder)
        }
        #expect(
            await recorder.calls == ["ping 1", "same true", "unknown gossip", "update info", "accepted t", "grant g", #"notice "later""#],
            "an open union message keeps a case it does not know")
    }
}
