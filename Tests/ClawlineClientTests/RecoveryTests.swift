import ClawlineClient
import ClawlineProtocol
import Foundation
import Testing
import WireTestSupport

@testable import ClawlineServer

@Suite("Client recovery against the reference server")
struct RecoveryTests {
    @Test("A socket dropped mid-stream reconnects, replays the final answer once and keeps no partial")
    func dropMidStreamThenReplay() async throws {
        try await Harness.run(pace: .milliseconds(40)) { harness in
            let (phone, _, tablet, _) = try await ApprovalTests.twoDevices(phone: harness.device("phone"), tablet: harness.device("tablet"))
            let tabletMessages = Recorder(tablet.chat.incomingMessages)
            let tabletStates = Recorder(tablet.chat.connectionState)
            let tabletNotices = Recorder(tablet.chat.notices)
            let phoneMessages = Recorder(phone.chat.incomingMessages)

            try await phone.chat.send(content: "one two three four five six", attachments: [])
            _ = try await tabletMessages.first { $0.status == .streaming }
            await tablet.chat.dropConnection()
            _ = try await tabletStates.first { $0 == .reconnecting }
            let final = try await phoneMessages.first { $0.role == .assistant && $0.status == .delivered }
            // The backoff waits on the client clock.
            harness.clock.advance(by: try await FakeSession.reconnection(1, in: tabletNotices))
            let replayed = try await tabletMessages.first { $0.id == final.id && $0.status == .delivered }
            #expect(replayed.content == "Echo: one two three four five six")
            let conversation = try await tablet.chat.conversation()
            #expect(conversation.messages.map(\.id) == [conversation.messages[0].id, final.id])
            #expect(!conversation.messages.contains { $0.status == .streaming })
            #expect(conversation.cursor == final.id)
        }
    }

    @Test("session_replaced stops the old service without reconnecting")
    func sessionReplaced() async throws {
        try await Harness.run { harness in
            let phone = harness.device("phone")
            let credentials = try await phone.pairAndConnect()
            let states = Recorder(phone.chat.connectionState)
            let second = harness.device("phone-again", id: phone.deviceId)
            try await second.chat.connect(token: credentials.token, lastMessageId: nil)
            _ = try await states.first { $0 == .failed(.sessionReplaced) }
            #expect(await phone.chat.currentState == .failed(.sessionReplaced))
            #expect(await second.chat.currentState == .connected)
        }
    }

    @Test("A revoked token ends the session and the auth manager returns to pairing")
    func revoked() async throws {
        try await Harness.run { harness in
            let phone = harness.device("phone")
            let credentials = try await phone.pairAndConnect()
            let states = Recorder(phone.chat.connectionState)
            guard var record = try await harness.provider.store.device(phone.deviceId.rawValue) else { throw ClientTestFailure("no device record") }
            record.status = .revoked
            try await harness.provider.store.save(record)
            let failed = try await states.first { if case .failed = $0 { true } else { false } }
            guard case .failed(let error) = failed else { return }
            #expect(error == .authRejected(.tokenRevoked))
            let auth = await MainActor.run {
                let auth = AuthManager(store: CredentialStore(store: MemorySecretStore()))
                auth.storeCredentials(credentials)
                return auth
            }
            let cleared = await MainActor.run { auth.clearCredentialsIfRejected(by: error) }
            #expect(cleared)
            #expect(await MainActor.run { auth.isAuthenticated } == false)
        }
    }

    @Test("Messages beyond the spec's rate wait on the client, in order, and the server never says rate_limited")
    func rateLimitedLocally() async throws {
        try await Harness.run { harness in
            let phone = harness.device("phone")
            _ = try await phone.pairAndConnect()
            let notices = Recorder(phone.chat.notices)
            for number in 1...7 { try await phone.chat.send(content: "message \(number)", attachments: []) }
            let limit = Clawline.RateLimits.message.limit
            #expect(try await phone.conversation { $0.pending.count == 7 - limit })
            #expect(try await phone.chat.conversation().pending.map(\.content) == ["message 6", "message 7"])
            harness.advance(by: .seconds(1))
            #expect(try await phone.conversation { $0.pending.isEmpty })
            #expect(try await phone.conversation { $0.messages.filter { $0.role == .assistant }.count == 7 })
            let users = try await phone.chat.conversation().messages.filter { $0.role == .user }.map(\.content)
            #expect(users == (1...7).map { "message \($0)" })
            #expect(!notices.all.contains { if case .serverError = $0 { true } else { false } })
        }
    }

    /// The protocol author's provider answers an `auth` over the rate limit with `auth_result`
    /// `{success: false, reason: "rate_limited"}`, then 1008, where ours sends `error rate_limited`.
    @Test("An auth over the rate limit answered auth_result rate_limited keeps the token and waits out the auth window")
    func rateLimitedAuthenticationAsResult() async throws {
        try await Harness.run(faults: [.authLimitAnsweredAsResult]) { harness in
            let phone = harness.device("phone")
            let credentials = try await phone.pair()
            // Spend the device's auth window: each connect is one `auth`.
            for _ in 0..<Clawline.RateLimits.auth.limit {
                try await phone.chat.connect(token: credentials.token)
                await phone.chat.disconnect()
            }
            let notices = Recorder(phone.chat.notices)
            let connecting = Task { try await phone.chat.connect(token: credentials.token) }
            defer { connecting.cancel() }
            let window = try #require(Clawline.RateLimits.auth.window)
            #expect(try await FakeSession.reconnection(1, in: notices) == window, "the next attempt waits the whole auth window")
            #expect(await phone.chat.currentState == .reconnecting, "not a verdict on the token")
            let refusals = harness.capture.text.split(separator: "\n").filter { $0.contains(#""reason":"rate_limited""#) }
            #expect(refusals.count == 1 && refusals[0].contains(#""type":"auth_result""#), "the provider answered in the author's form")
            harness.advance(by: window)
            try await connecting.value
            #expect(await phone.chat.currentState == .connected)
        }
    }

    @Test("A file is uploaded before its message, attached as an asset, and downloads intact")
    func uploadAndDownload() async throws {
        try await Harness.run { harness in
            let phone = harness.device("phone")
            let credentials = try await phone.pairAndConnect()
            let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let sent = try await phone.chat.send(content: "the file", attachments: [.file(bytes, mimeType: "application/pdf", fileName: "a.pdf")])
            guard case .asset(let asset) = sent.attachments.first else { throw ClientTestFailure("no asset attached: \(sent)") }
            #expect(try await phone.conversation { $0.pending.isEmpty })
            let http = ProviderHTTPClient(baseURL: harness.serverURL)
            let download = try await http.download(assetId: asset.assetId, token: credentials.token)
            #expect(download.data == bytes)
            #expect(download.mimeType == "application/pdf")
            await #expect(throws: ClawlineClientError.self) { try await http.download(assetId: asset.assetId, token: "nonsense") }
        }
    }

    @Test("Version preflight passes against the reference server")
    func versionPreflight() async throws {
        try await Harness.run { harness in
            try await harness.device("phone").connection.checkVersion()
            #expect(try await ProviderHTTPClient(baseURL: harness.serverURL).protocolVersion() == Clawline.Constants.protocolVersion)
        }
    }
}
