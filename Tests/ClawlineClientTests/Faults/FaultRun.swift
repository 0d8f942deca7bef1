import ClawlineClient
import ClawlineProtocol
import Foundation
import NIOConcurrencyHelpers
import WireTestSupport

/// One run of the fault suite: two accounts of two devices each, spread over the provider's
/// nodes, chatting (each device sends a message every `pace`, every one with a text of its own)
/// while the test breaks something. Every frame of every socket is kept for ``HistoryChecker``.
final class FaultRun: Sendable {
    /// A device of the run.
    struct Member: Sendable {
        let device: TestDevice
        let credentials: Credentials
        let history: DeviceHistory
        let node: Int
    }

    let nodes: [URL]
    let members: [Member]
    /// The admin's (the first member's) approval requests.
    let approvals: Recorder<PairApprovalRequest>
    private let sending = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// Pairs the devices: the first is the admin of account one and approves the others, its
    /// tablet into account one and both devices of account two into a new account. Device `i` of
    /// account `a` connects to node `(a + i) % nodes.count`.
    static func start(on nodes: [URL]) async throws -> FaultRun {
        func device(on node: Int) -> (TestDevice, DeviceHistory) { newDevice(on: nodes[node]) }
        let layout = [(0, 0), (0, 1), (1, 0), (1, 1)].map { account, index in (account, (account + index) % nodes.count) }
        let admin = device(on: layout[0].1)
        let adminCredentials = try await admin.0.pairAndConnect()
        let approvals = Recorder(admin.0.connection.incomingPairingRequests)
        let secondAccount = UserId.newAccount()
        // The admin's pairing socket is not part of the run: its history is its chat sockets'.
        var members = [Member(device: admin.0, credentials: adminCredentials, history: admin.1, node: layout[0].1)]
        for (account, node) in layout.dropFirst() {
            let (member, history) = device(on: node)
            let userId = account == 0 ? adminCredentials.userId : secondAccount
            let result = try await ApprovalTests.pairThroughAdmin(admin: admin.0, tablet: member, requests: approvals) { connection, request in
                try await connection.approvePairing(deviceId: request.deviceId, userId: userId)
            }
            guard case .success(let credentials) = result else { throw ClientTestFailure("not approved: \(result)") }
            try await member.chat.connect(token: credentials.token, lastMessageId: nil)
            members.append(Member(device: member, credentials: credentials, history: history, node: node))
        }
        return FaultRun(nodes: nodes, members: members, approvals: approvals)
    }

    /// A device of the provider at `node`, not paired yet, whose chat frames `history` keeps.
    static func newDevice(on node: URL) -> (TestDevice, DeviceHistory) {
        let id = DeviceId(UUID().uuidString.lowercased())
        let history = DeviceHistory(account: "", device: id.rawValue)
        let store = SignallingConversationStore(InMemoryConversationStore())
        let chat = ChatService(serverURL: node, deviceId: id, store: store, observer: history.observer)
        let connection = ConnectionService(serverURL: node, deviceInfo: DeviceInfo(platform: "Linux", model: "fault run"))
        return (TestDevice(deviceId: id, chat: chat, connection: connection, store: store), history)
    }

    private init(nodes: [URL], members: [Member], approvals: Recorder<PairApprovalRequest>) {
        self.nodes = nodes
        self.members = members
        self.approvals = approvals
    }

    /// The histories, each with its account.
    var histories: [DeviceHistory] {
        members.map { member in
            let history = DeviceHistory(account: member.credentials.userId.rawValue, device: member.device.deviceId.rawValue)
            history.record(member.history.frames)
            return history
        }
    }

    /// Starts every device sending, one message each every `pace` (under the contract's five a
    /// second), until ``stopSending()``.
    func startSending(pace: Duration = .milliseconds(300)) {
        let members = members
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for (number, member) in members.enumerated() {
                    group.addTask {
                        var count = 0
                        while !Task.isCancelled {
                            count += 1
                            _ = try? await member.device.chat.send(content: "device \(number) message \(count)", attachments: [])
                            try? await Task.sleep(for: pace)
                        }
                    }
                }
            }
        }
        sending.withLockedValue { $0 = task }
    }

    /// Stops sending and waits for the senders to end.
    func stopSending() async {
        let task = sending.withLockedValue { $0 }
        task?.cancel()
        await task?.value
    }

    /// Waits until every device's queue is empty (every message it sent acknowledged or refused
    /// for good); false if some are still waiting after `timeout`.
    func drained(timeout: Duration = .seconds(120)) async throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        for member in members {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard try await member.device.conversation(timeout: remaining, until: { $0.pending.isEmpty }) else { return false }
        }
        return true
    }

    /// The final reconnect: every device closes its socket and connects again with its cursor,
    /// and the call returns once each one's replay is over.
    func reconnectAll() async throws {
        for member in members {
            let notices = Recorder(member.device.chat.notices)
            await member.device.chat.disconnect()
            try await member.device.chat.connect(token: member.credentials.token)
            _ = try await notices.first(timeout: .seconds(60)) { $0 == .replayFinished }
        }
    }

    /// The first `ack` any device of node `node` got after `date`: when that node took messages again.
    func firstAcknowledgement(on node: Int, after date: Date) -> Date? {
        members.filter { $0.node == node }.compactMap { $0.history.firstAcknowledgement(after: date) }.min()
    }

    /// Checks the run's history against `store`, after waiting (at most `timeout`) for every
    /// device to hold every stored event: answers still streaming at the reconnect end after it.
    func check(store: () async throws -> [StoredEvent], timeout: Duration = .seconds(30)) async throws -> HistoryReport {
        var report = HistoryReport()
        _ = try await eventually(timeout: timeout) {
            report = HistoryChecker.check(histories, store: try await store())
            return report.violations.isEmpty
        }
        return report
    }

    /// Disconnects every device.
    func end() async {
        for member in members { await member.device.chat.disconnect() }
    }
}

/// Reads what a store holds, as the checker compares it.
enum StoredEvents {
    /// The events of the PostgreSQL database at `url`, in commit order.
    static func postgres(_ cluster: PostgresCluster, database url: String) async throws -> [StoredEvent] {
        let rows = try await cluster.query("SELECT user_id, event_id, frame FROM events ORDER BY seq", on: url)
        return rows.split(separator: "\n").compactMap { line in
            let columns = line.split(separator: "\t", maxSplits: 2).map(String.init)
            return columns.count == 3 ? event(account: columns[0], id: columns[1], frame: columns[2]) : nil
        }
    }

    /// The events of the SQLite store in `dataDirectory`, in commit order (read with Python's sqlite3).
    static func sqlite(dataDirectory: URL) async throws -> [StoredEvent] {
        let script = """
            import json, sqlite3, sys
            db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
            print(json.dumps(db.execute("SELECT user_id, event_id, frame FROM events ORDER BY seq").fetchall()))
            """
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, dataDirectory.appendingPathComponent("clawline.sqlite").path])
        guard result.status == 0, let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String]] else {
            throw ClientTestFailure("the SQLite store could not be read: \(result.stderr)")
        }
        return rows.compactMap { $0.count == 3 ? event(account: $0[0], id: $0[1], frame: $0[2]) : nil }
    }

    private static func event(account: String, id: String, frame: String) -> StoredEvent? {
        guard let fields = HistoryFrame(frame) else { return nil }
        return StoredEvent(id: id, account: account, role: fields.role ?? "", content: fields.content ?? "")
    }
}
