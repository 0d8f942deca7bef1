import ClawlineProtocol
import Foundation

/// One node on SQLite, one node on PostgreSQL and two nodes on PostgreSQL under the same load,
/// and the latency of an echo that crosses from one node to the other.
enum Nodes {
    static func compare(database: String, server executable: String, devices: Int, seconds: Int, report: (String, LoadRun) -> Void) async throws {
        say("\(devices) devices at 4.5 msg/s, \(seconds) s per run")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-nodes-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }

        let sqlite = try ServerProcess(
            executable,
            [
                "serve", "--port", "0", "--data-dir", directory + "/sqlite", "--max-connections-per-address", "100000",
                "--max-pending-pairings-per-address", "1000", "--max-device-ids-per-address", "100000",
            ])
        let sqliteFleet = try await Fleet.pair(port: sqlite.port, devices: devices)
        report("one node, SQLite", try await Load.clawline(fleet: sqliteFleet, devices: devices, seconds: seconds, server: sqlite))
        sqlite.stop()

        let one = try ServerProcess(executable, serve(directory + "/one", database: database, schema: fresh()))
        let oneFleet = try await Fleet.pair(port: one.port, devices: devices)
        report("one node, PostgreSQL", try await Load.clawline(fleet: oneFleet, devices: devices, seconds: seconds, server: one))
        one.stop()

        let schema = fresh()
        let first = try ServerProcess(executable, serve(directory + "/a", database: database, schema: schema))
        let second = try ServerProcess(executable, serve(directory + "/b", database: database, schema: schema))
        let fleet = try await Fleet.pair(port: first.port, devices: devices)
        let urls = [first, second].map { "ws://127.0.0.1:\($0.port)/ws" }
        report(
            "two nodes, PostgreSQL (devices split)",
            try await Load.clawline(fleet: fleet, devices: devices, seconds: seconds, servers: [first, second], urls: urls))
        first.stop()
        second.stop()

        // Two fresh nodes: a phone and a tablet of one account.
        let latencySchema = fresh()
        let nodeA = try ServerProcess(executable, serve(directory + "/c", database: database, schema: latencySchema))
        let nodeB = try ServerProcess(executable, serve(directory + "/d", database: database, schema: latencySchema))
        let pair = try await Fleet.pairOneAccount(adminURL: "ws://127.0.0.1:\(nodeA.port)/ws", devices: 2)
        for (name, node) in [("echo to a device on the same node", nodeA), ("echo to a device on the other node", nodeB)] {
            let run = try await echoLatency(
                phone: pair[0], tablet: pair[1], phoneURL: "ws://127.0.0.1:\(nodeA.port)/ws", tabletURL: "ws://127.0.0.1:\(node.port)/ws",
                seconds: seconds, servers: [nodeA, nodeB])
            report(name, run)
        }
        nodeA.stop()
        nodeB.stop()
    }

    private static func fresh() -> String { "bench_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))" }

    private static func serve(_ directory: String, database: String, schema: String) -> [String] {
        [
            "serve", "--port", "0", "--data-dir", directory, "--max-connections-per-address", "100000", "--max-pending-pairings-per-address", "1000",
            "--max-device-ids-per-address", "100000",
            "--database", database + (database.contains("?") ? "&" : "?") + "schema=\(schema)",
        ]
    }

    /// A phone and a tablet of one account: the phone sends (4.5 a second), and each sample is the
    /// time until the tablet receives the echo of the phone's message.
    static func echoLatency(
        phone: (deviceID: String, token: String), tablet: (deviceID: String, token: String), phoneURL: String, tabletURL: String,
        seconds: Int, servers: [ServerProcess]
    ) async throws -> LoadRun {
        try await Task.sleep(for: .seconds(1))
        let phone = try await Fleet.open(url: phoneURL, deviceID: phone.deviceID, token: phone.token)
        let tablet = try await Fleet.open(url: tabletURL, deviceID: tablet.deviceID, token: tablet.token)
        defer {
            phone.close()
            tablet.close()
        }
        let counter = Counter()
        let run = UUID().uuidString.prefix(8)
        return await Load.measure(sockets: [phone], seconds: seconds, servers: servers, pace: Load.pace) { phone in
            let content = "echo \(run) \(counter.next())"
            phone.send(ClientFrame.message(ClientMessage(id: "c_\(UUID().uuidString)", content: content)).encodedText())
            let echo = try? await Fleet.read(tablet) { frame in
                if case .message(let message) = frame { return message.role == .user && message.content == content }
                return false
            }
            return echo != nil
        }
    }
}

extension Fleet {
    /// Pairs `devices` devices into one account (a new admin approves them into its own).
    static func pairOneAccount(adminURL: String, devices: Int) async throws -> [(deviceID: String, token: String)] {
        let adminID = UUID().uuidString
        let admin = try await pairFirst(url: adminURL, deviceID: adminID)
        let socket = try await open(url: adminURL, deviceID: adminID, token: admin.token)
        defer { socket.close() }
        var paired: [(deviceID: String, token: String)] = []
        for _ in 0..<devices { paired.append(try await pairApproved(url: adminURL, admin: socket, into: admin.userId.rawValue)) }
        return paired
    }
}
