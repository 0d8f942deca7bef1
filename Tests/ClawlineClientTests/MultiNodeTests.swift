import ClawlineClient
import ClawlineProtocol
import Foundation
import Testing
import WireTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Two `clawline-server` nodes on one PostgreSQL database (a schema of their own per test);
/// enabled when `CLAWLINE_TEST_POSTGRES_URL` names a database.
struct TwoNodes: Sendable {
    let first: NodeProcess
    let second: NodeProcess
    let firstURL: URL
    let secondURL: URL
    let database: String

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["CLAWLINE_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func start(_ arguments: [String] = []) async throws -> TwoNodes {
        guard let base = postgresURL else { throw ClientTestFailure("no PostgreSQL") }
        let schema = "n_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        let database = base + (base.contains("?") ? "&" : "?") + "schema=\(schema)"
        let first = try NodeProcess(database: database, arguments)
        let firstURL = try await first.baseURL()
        let second = try NodeProcess(database: database, arguments)
        return TwoNodes(first: first, second: second, firstURL: firstURL, secondURL: try await second.baseURL(), database: database)
    }

    /// A device of a real client on real time, against `node`.
    func device(
        _ id: DeviceId = DeviceId(UUID().uuidString.lowercased()), on node: URL, store: any ConversationStore = InMemoryConversationStore()
    )
        -> TestDevice
    {
        let store = SignallingConversationStore(store)
        return TestDevice(
            deviceId: id, chat: ChatService(serverURL: node, deviceId: id, store: store),
            connection: ConnectionService(serverURL: node, deviceInfo: DeviceInfo(platform: "Linux", model: "node test")), store: store)
    }

    /// Ends every connection of the database that listens for the nodes' notifications, as a
    /// network fault or `pg_terminate_backend` by an operator would.
    static func terminateListeners() throws {
        guard let url = postgresURL else { throw ClientTestFailure("no PostgreSQL") }
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = [
            "psql", url, "-v", "ON_ERROR_STOP=1", "-tAc",
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()",
        ]
        let output = Pipe()
        psql.standardOutput = output
        try psql.run()
        psql.waitUntilExit()
        let ended =
            Int(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            ?? 0
        guard psql.terminationStatus == 0, ended >= 2 else {
            throw ClientTestFailure("psql ended \(ended) listening connections (status \(psql.terminationStatus))")
        }
    }

    /// The value of an unlabelled gauge in the scrape at `url`.
    static func gauge(_ name: String, at url: URL) async throws -> Int {
        let (body, _) = try await NIOHTTPExchange().send(URLRequest(url: url))
        let line = String(decoding: body, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line?.split(separator: " ").last.flatMap { Double($0) }.map { Int($0) } ?? 0
    }

    /// An admin phone connected to the first node and a tablet of its account connected to the
    /// second, approved across the nodes.
    func twoDevices() async throws -> (phone: TestDevice, admin: Credentials, tablet: TestDevice, member: Credentials) {
        try await ApprovalTests.twoDevices(phone: device(on: firstURL), tablet: device(on: secondURL))
    }
}

@Suite("Several nodes on one PostgreSQL", .enabled(if: TwoNodes.postgresURL != nil), .serialized)
struct MultiNodeTests {
    @Test("An admin on node A approves a device pairing on node B; each one's messages and answers reach the other")
    func approvalAndMessagesAcrossNodes() async throws {
        let nodes = try await TwoNodes.start()
        let (phone, admin, tablet, member) = try await nodes.twoDevices()
        #expect(member.userId == admin.userId)
        let tabletMessages = Recorder(tablet.chat.incomingMessages)
        let phoneMessages = Recorder(phone.chat.incomingMessages)
        try await phone.chat.send(content: "from node one", attachments: [])
        let echo = try await tabletMessages.first { $0.role == .user && $0.content == "from node one" }
        #expect(echo.deviceId == phone.deviceId)
        _ = try await tabletMessages.first { $0.role == .assistant && $0.status == .streaming }
        _ = try await tabletMessages.first { $0.role == .assistant && $0.status == .delivered && $0.content == "Echo: from node one" }
        try await tablet.chat.send(content: "from node two", attachments: [])
        _ = try await phoneMessages.first { $0.role == .assistant && $0.status == .delivered && $0.content == "Echo: from node two" }
        let onPhone = try await phone.chat.conversation().messages.map(\.id)
        #expect(try await tablet.conversation { $0.messages.map(\.id) == onPhone })
        await phone.chat.disconnect()
        await tablet.chat.disconnect()
    }

    @Test("Node B's /metrics reports the bus's publish-to-deliver lag of what node A published")
    func clusterDeliveryLagIsMeasured() async throws {
        let nodes = try await TwoNodes.start(["--metrics-port", "0"])
        let (phone, _, tablet, _) = try await nodes.twoDevices()
        let tabletMessages = Recorder(tablet.chat.incomingMessages)
        try await phone.chat.send(content: "across the bus", attachments: [])
        _ = try await tabletMessages.first { $0.role == .user && $0.content == "across the bus" }
        let (body, _) = try await NIOHTTPExchange().send(URLRequest(url: try await nodes.second.metricsURL()))
        let scrape = String(decoding: body, as: UTF8.self)
        let count = scrape.split(separator: "\n").first { $0.hasPrefix("clawline_cluster_delivery_lag_seconds_count ") }
        #expect((count?.split(separator: " ").last.flatMap { Double($0) } ?? 0) >= 1, "\(scrape)")
        #expect(scrape.contains("# TYPE clawline_cluster_delivery_lag_seconds histogram"))
        await phone.chat.disconnect()
        await tablet.chat.disconnect()
    }

    @Test("A file uploaded through node A downloads intact through node B")
    func uploadsAcrossNodes() async throws {
        let nodes = try await TwoNodes.start()
        let phone = nodes.device(on: nodes.firstURL)
        let credentials = try await phone.pairAndConnect()
        let bytes = Data((0..<2_500_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let asset = try await ProviderHTTPClient(baseURL: nodes.firstURL).upload(bytes, mimeType: "video/mp4", token: credentials.token)
        let download = try await ProviderHTTPClient(baseURL: nodes.secondURL).download(assetId: asset.assetId, token: credentials.token)
        #expect(download.data == bytes)
        #expect(download.mimeType == "video/mp4")
        await phone.chat.disconnect()
    }

    @Test("A device that connects on node B replaces its socket on node A with session_replaced")
    func takeoverAcrossNodes() async throws {
        let nodes = try await TwoNodes.start()
        let phone = nodes.device(on: nodes.firstURL)
        let credentials = try await phone.pairAndConnect()
        let states = Recorder(phone.chat.connectionState)
        let again = nodes.device(phone.deviceId, on: nodes.secondURL)
        try await again.chat.connect(token: credentials.token, lastMessageId: nil)
        _ = try await states.first { $0 == .failed(.sessionReplaced) }
        await again.chat.disconnect()
    }

    @Test("The first admin is one device even when two pair at once on two nodes")
    func firstAdminRace() async throws {
        let nodes = try await TwoNodes.start(["--metrics-port", "0"])
        let one = nodes.device(on: nodes.firstURL)
        let two = nodes.device(on: nodes.secondURL)
        let pairings = [
            Task { try await one.connection.requestPairing(claimedName: "one", deviceId: one.deviceId) },
            Task { try await two.connection.requestPairing(claimedName: "two", deviceId: two.deviceId) },
        ]
        defer { for pairing in pairings { pairing.cancel() } }
        // The winner is paired at once; the other waits for it to approve (it never does here). The
        // race is over once one request waits: its node reports it on /metrics.
        let metrics = [try await nodes.first.metricsURL(), try await nodes.second.metricsURL()]
        let decided = try await eventually(timeout: .seconds(10)) {
            var waiting = 0
            for url in metrics { waiting += try await TwoNodes.gauge("clawline_pairing_requests_pending", at: url) }
            return waiting >= 1
        }
        #expect(decided)
        let listed = try await CLIProcess.runServer(["devices", "list", "--database", nodes.database]).output
        let devices = listed.split(separator: "\n")
        #expect(devices.count == 1 && devices[0].contains("  admin  "), "\(listed)")
    }

    @Test("A revocation reaches the node that holds the device")
    func revocationAcrossNodes() async throws {
        let nodes = try await TwoNodes.start()
        let (phone, _, tablet, _) = try await nodes.twoDevices()
        let states = Recorder(tablet.chat.connectionState)
        let revoked = try await CLIProcess.runServer(["devices", "revoke", tablet.deviceId.rawValue, "--database", nodes.database])
        #expect(revoked.status == 0, "\(revoked)")
        _ = try await states.first { $0 == .failed(.authRejected(.tokenRevoked)) }
        await phone.chat.disconnect()
    }

    @Test("A node whose LISTEN connection is ended catches up from the store: its device gets the echo without reconnecting")
    func lostListenConnectionCatchesUp() async throws {
        let nodes = try await TwoNodes.start()
        let (phone, _, tablet, _) = try await nodes.twoDevices()
        let tabletMessages = Recorder(tablet.chat.incomingMessages)
        // Every LISTEN connection is ended, and the phone sends at once: node two misses the notification.
        try TwoNodes.terminateListeners()
        try await phone.chat.send(content: "while node two is deaf", attachments: [])
        let echo = try await tabletMessages.first(timeout: .seconds(30)) { $0.role == .user && $0.content == "while node two is deaf" }
        #expect(echo.deviceId == phone.deviceId)
        _ = try await tabletMessages.first(timeout: .seconds(30)) { $0.role == .assistant && $0.status == .delivered }
        let ids = try await tablet.chat.conversation().messages.map(\.id)
        #expect(Set(ids).count == ids.count, "nothing twice")
        await phone.chat.disconnect()
        await tablet.chat.disconnect()
    }

    /// The LISTEN connections are ended at round 4; node A is killed at round 8 and the phone moves to node B.
    @Test("Churn on two nodes through faults: a device reconnecting with its cursor and one moving off a killed node get every message once")
    func churnThroughNodeFaults() async throws {
        let nodes = try await TwoNodes.start()
        let (firstPhone, admin, tablet, member) = try await nodes.twoDevices()
        var phone = firstPhone
        let rounds = 12
        for round in 0..<rounds {
            if round == 4 { try TwoNodes.terminateListeners() }
            if round == 8 {
                // Node A dies with the phone's socket; the phone's app reconnects to node B with its stored cursor.
                try await nodes.first.kill()
                await phone.chat.disconnect()
                phone = nodes.device(phone.deviceId, on: nodes.secondURL, store: phone.store)
                try await phone.chat.connect(token: admin.token)
            }
            try await phone.chat.send(content: "round \(round)", attachments: [])
            // Four reconnects in all: the contract allows a device five `auth` a minute.
            if round % 3 == 2 {
                await tablet.chat.disconnect()
                try await tablet.chat.connect(token: member.token)
            }
        }
        let sent = Set((0..<rounds).map { "round \($0)" })
        for device in [phone, tablet] {
            #expect(
                try await device.conversation(timeout: .seconds(60)) { conversation in
                    let users = conversation.messages.filter { $0.role == .user }.map(\.content)
                    return Set(users) == sent && users.count == sent.count
                }, "every message once on \(device.deviceId)")
            let ids = try await device.chat.conversation().messages.map(\.id)
            #expect(Set(ids).count == ids.count, "no event twice")
        }
        await phone.chat.disconnect()
        await tablet.chat.disconnect()
    }

    @Test("A token is issued again once, whichever node is asked: what pairing left undone is in the shared store")
    func tokenReissuedOnceAcrossNodes() async throws {
        let nodes = try await TwoNodes.start()
        let phone = nodes.device(on: nodes.firstURL)
        let first = try await phone.pair()
        // The app lost its token before using it and asks node B: issued again, once.
        let again = try await nodes.device(phone.deviceId, on: nodes.secondURL).pair()
        #expect(again.userId == first.userId)
        // A third request, back on node A, is refused: node B's reissue is in the store.
        await #expect(throws: (any Error).self) { _ = try await nodes.device(phone.deviceId, on: nodes.firstURL).pair() }
    }

    @Test("A node killed with SIGKILL loses nothing acknowledged: its device replays every message once from the other node")
    func nodeKilledMidConversation() async throws {
        let nodes = try await TwoNodes.start()
        let phone = nodes.device(on: nodes.firstURL)
        let credentials = try await phone.pairAndConnect()
        var sent: [ChatMessage] = []
        for number in 1...5 { sent.append(try await phone.chat.send(content: "message \(number)", attachments: [])) }
        #expect(try await phone.conversation(timeout: .seconds(30)) { $0.pending.isEmpty })
        try await phone.chat.send(content: "in flight when the node dies", attachments: [])
        try await nodes.first.kill()
        await phone.chat.disconnect()
        let moved = nodes.device(phone.deviceId, on: nodes.secondURL)
        let notices = Recorder(moved.chat.notices)
        try await moved.chat.connect(token: credentials.token, lastMessageId: nil)
        _ = try await notices.first { $0 == .replayFinished }
        let replayed = try await moved.chat.conversation().messages.filter { $0.role == .user }
        for message in sent { #expect(replayed.filter { $0.content == message.content }.count == 1, "\(message.content)") }
        #expect(Set(replayed.map(\.id)).count == replayed.count)
        await moved.chat.disconnect()
    }

    @Test("SIGTERM drains node A while devices chat: it exits in its bound, they move to node B and replay, nothing lost or twice")
    func nodeDrainedMidConversation() async throws {
        let nodes = try await TwoNodes.start(["--drain-timeout", "5"])
        let (firstPhone, admin, tablet, _) = try await nodes.twoDevices()
        var phone = firstPhone
        let notices = Recorder(phone.chat.notices)
        var sent: [String] = []
        for round in 0..<4 {
            try await phone.chat.send(content: "phone \(round)", attachments: [])
            try await tablet.chat.send(content: "tablet \(round)", attachments: [])
            sent += ["phone \(round)", "tablet \(round)"]
        }
        // Node A goes while the answers to those messages are streaming.
        let ended = try await nodes.first.terminate()
        print("drain: node A exited with status \(ended.status) after \(ended.took)")
        #expect(ended.status == 0, "the drained node exits cleanly: \(nodes.first.standardError)")
        #expect(ended.took < .seconds(8), "the drain timeout (5 s), the bus flush (1 s) and the exit: took \(ended.took)")
        _ = try await notices.first {
            if case .connectionLost(let reason) = $0 { return reason.contains("1001") }
            return false
        }
        // The phone's app reconnects to node B with its stored cursor and queue.
        await phone.chat.disconnect()
        phone = nodes.device(phone.deviceId, on: nodes.secondURL, store: phone.store)
        try await phone.chat.connect(token: admin.token)
        for round in 4..<6 {
            try await phone.chat.send(content: "phone \(round)", attachments: [])
            try await tablet.chat.send(content: "tablet \(round)", attachments: [])
            sent += ["phone \(round)", "tablet \(round)"]
        }
        for device in [phone, tablet] {
            #expect(
                try await device.conversation(timeout: .seconds(60)) { conversation in
                    conversation.messages.filter { $0.role == .user }.map(\.content).sorted() == sent.sorted()
                }, "every message once on \(device.deviceId)")
            let ids = try await device.chat.conversation().messages.map(\.id)
            #expect(Set(ids).count == ids.count, "no event twice")
        }
        await phone.chat.disconnect()
        await tablet.chat.disconnect()
    }
}
