import ClawlineClient
import ClawlineProtocol
import Foundation
import Testing
import WireTestSupport

@Suite("Client against the reference server")
struct PairingAndChatTests {
    @Test("The first device pairs as admin and gets a streamed answer to its message")
    func firstDeviceChats() async throws {
        try await Harness.run { harness in
            let phone = harness.device("phone")
            let credentials = try await phone.pair()
            #expect(credentials.claims?.isAdmin == true)
            #expect(credentials.claims?.deviceId == phone.deviceId)
            let messages = Recorder(phone.chat.incomingMessages)
            try await phone.chat.connect(token: credentials.token, lastMessageId: nil)
            let sent = try await phone.chat.send(content: "hello there", attachments: [])
            #expect(sent.status == .sending && sent.id.hasPrefix("c_"))
            let final = try await messages.first { $0.role == .assistant && $0.status == .delivered }
            #expect(final.content == "Echo: hello there")
            let snapshots = messages.all.filter { $0.id == final.id && $0.status == .streaming }
            #expect(snapshots.count >= 2)
            let conversation = try await phone.chat.conversation()
            #expect(conversation.pending.isEmpty)
            #expect(conversation.messages.map(\.role) == [.user, .assistant])
            #expect(conversation.messages[0].id.hasPrefix("s_") && conversation.messages[0].clientId == sent.id)
            #expect(conversation.cursor == final.id)
            await phone.chat.disconnect()
        }
    }
}

@Suite("Client pairing and approvals against the reference server")
struct ApprovalTests {
    /// Pairs `tablet` while `admin` (connected, its approvals attached) decides with `decide`.
    /// `requests` reads the admin's approval requests; a caller pairing several devices passes one
    /// recorder for all (the requests are one stream, which ends when a reader stops).
    static func pairThroughAdmin(
        admin: TestDevice, tablet: TestDevice, requests: Recorder<PairApprovalRequest>? = nil,
        decide: @escaping @Sendable (ConnectionService, PairApprovalRequest) async throws -> Void
    ) async throws -> PairingResult {
        await admin.connection.attach(admin.chat)
        let requests = requests ?? Recorder(admin.connection.incomingPairingRequests)
        async let result = tablet.connection.requestPairing(claimedName: "Kaywood's tablet", deviceId: tablet.deviceId)
        let request = try await requests.first { $0.deviceId == tablet.deviceId }
        #expect(request.claimedName == "Kaywood's tablet")
        #expect(request.deviceInfo.platform == "Linux")
        try await decide(admin.connection, request)
        return try await result
    }

    /// `phone` paired first (the admin) and connected, and `tablet` approved by it into its
    /// account, connected too (the two may be on different nodes).
    static func twoDevices(
        phone: TestDevice, tablet: TestDevice
    ) async throws -> (
        phone: TestDevice, admin: Credentials, tablet: TestDevice, member: Credentials
    ) {
        let admin = try await phone.pairAndConnect()
        let result = try await pairThroughAdmin(admin: phone, tablet: tablet) { connection, request in
            try await connection.approvePairing(deviceId: request.deviceId, userId: admin.userId)
        }
        guard case .success(let member) = result else { throw ClientTestFailure("not approved: \(result)") }
        try await tablet.chat.connect(token: member.token, lastMessageId: nil)
        return (phone, admin, tablet, member)
    }

    @Test("A second device is approved into the admin's account and both see one history")
    func approvedIntoSameAccount() async throws {
        try await Harness.run { harness in
            let (phone, admin, tablet, credentials) = try await Self.twoDevices(phone: harness.device("phone"), tablet: harness.device("tablet"))
            #expect(credentials.userId == admin.userId)
            #expect(credentials.claims?.isAdmin == false)
            let phoneMessages = Recorder(phone.chat.incomingMessages)
            try await tablet.chat.send(content: "from the tablet", attachments: [])
            let answer = try await phoneMessages.first { $0.role == .assistant && $0.status == .delivered }
            #expect(answer.content == "Echo: from the tablet")
            #expect(try await tablet.conversation { $0.messages.count == 2 })
            let onPhone = try await phone.chat.conversation().messages
            let onTablet = try await tablet.chat.conversation().messages
            #expect(onPhone.map(\.id) == onTablet.map(\.id))
            #expect(onPhone.first?.deviceId == tablet.deviceId)
        }
    }

    @Test("An admin's connection service attached to its chat again still hears every pairing request (two devices approved in turn)")
    func attachedAgain() async throws {
        try await Harness.run { harness in
            let phone = harness.device("phone")
            let admin = try await phone.pairAndConnect()
            let requests = Recorder(phone.connection.incomingPairingRequests)
            for name in ["tablet", "laptop"] {
                // pairThroughAdmin attaches the admin's connection service each time.
                let result = try await Self.pairThroughAdmin(admin: phone, tablet: harness.device(name), requests: requests) { connection, request in
                    try await connection.approvePairing(deviceId: request.deviceId, userId: admin.userId)
                }
                guard case .success(let credentials) = result else { throw ClientTestFailure("\(name) was not approved: \(result)") }
                #expect(credentials.userId == admin.userId)
            }
        }
    }

    @Test("A denied device gets pair_denied")
    func denied() async throws {
        try await Harness.run { harness in
            let phone = harness.device("phone")
            _ = try await phone.pairAndConnect()
            let result = try await Self.pairThroughAdmin(admin: phone, tablet: harness.device("tablet")) { connection, request in
                try await connection.denyPairing(deviceId: request.deviceId)
            }
            #expect(result == .denied(.pairDenied))
        }
    }

    @Test("A request nobody decides gets pair_timeout after the spec's pending time")
    func timesOut() async throws {
        try await Harness.run { harness in
            _ = try await harness.device("phone").pair()
            let tablet = harness.device("tablet")
            async let result = tablet.connection.requestPairing(claimedName: "tablet", deviceId: tablet.deviceId)
            await harness.serverClock.waitForSleepers(atLeast: 1)
            harness.serverClock.advance(by: Clawline.Constants.pendingPairingTTL)
            #expect(try await result == .denied(.pairTimeout))
        }
    }
}
