import ClawlineClient
import Foundation
import Testing
import WireTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Faults the provider meets in operation, each tried while two accounts' devices chat on real
/// `clawline-server` processes, and judged by ``HistoryChecker`` after a final reconnect and
/// replay: nothing acknowledged lost, nothing twice on a socket, nothing out of the store's order,
/// nothing acknowledged that the store lacks. Each test prints its figures (`fault …:` lines) for
/// docs/guarantees.md. The PostgreSQL faults run on a cluster of the suite's own; the full disk
/// needs root (to mount a small filesystem).
@Suite("Faults the provider meets", .enabled(if: PostgresCluster.programs != nil), .serialized)
struct FaultTests {
    /// Holds a fault for `duration`: the fault's length is what the scenario is, not a wait for an event.
    private static func hold(_ duration: Duration) async throws { try await Task.sleep(for: duration) }

    /// The status `/readyz` of `node` answers (0 when it does not answer within `limit`).
    static func readiness(of node: URL, limit: Duration = .seconds(5)) async -> Int {
        let url = node.appendingPathComponent("readyz")
        return await withTaskGroup(of: Int.self) { group in
            group.addTask { ((try? await NIOHTTPExchange().send(URLRequest(url: url)).1) as? HTTPURLResponse)?.statusCode ?? 0 }
            group.addTask {
                try? await Task.sleep(for: limit)
                return 0
            }
            let first = await group.next() ?? 0
            group.cancelAll()
            return first
        }
    }

    /// Waits until every device has had `count` messages acknowledged since `date`. When one has
    /// not, the failure names it with its last frames and the tail of each node's log.
    private static func acknowledged(_ run: FaultRun, _ count: Int, since date: Date = .distantPast, nodes: [NodeProcess]) async throws {
        func acks(of member: FaultRun.Member) -> Int {
            member.history.frames.filter { $0.direction == .server && $0.timestamp > date && HistoryFrame($0.text)?.type == "ack" }.count
        }
        let flowing = try await eventually(timeout: .seconds(60)) { run.members.allSatisfy { acks(of: $0) >= count } }
        guard !flowing else { return }
        var lines = ["the devices' messages are not acknowledged (\(count) since \(date) wanted)"]
        for member in run.members where acks(of: member) < count {
            lines.append("device \(member.device.deviceId.rawValue) on node \(member.node + 1): \(acks(of: member)) acks; its last frames:")
            for frame in member.history.frames.suffix(8) {
                let at = String(format: "%+.1f s", frame.timestamp.timeIntervalSince(date))
                lines.append("  \(at) \(frame.connection) \(frame.direction == .server ? "<-" : "->") \(frame.text.prefix(160))")
            }
        }
        for (index, node) in nodes.enumerated() {
            lines.append("node \(index + 1)'s log ends:")
            lines += node.standardError.split(separator: "\n").suffix(12).map { "  \($0.prefix(300))" }
        }
        throw ClientTestFailure(lines.joined(separator: "\n"))
    }

    /// Starts `nodes`, pairs the run's devices on them and has them chat until each has had
    /// three messages acknowledged: the state every fault begins from.
    private static func chatting(on nodes: [NodeProcess]) async throws -> FaultRun {
        var urls: [URL] = []
        for node in nodes { urls.append(try await node.baseURL()) }
        let run: FaultRun
        do {
            run = try await FaultRun.start(on: urls)
        } catch {
            let logs = nodes.enumerated().map { "node \($0.offset + 1)'s log:\n\($0.element.standardError.suffix(3000))" }
            throw ClientTestFailure("the devices could not be paired: \(error)\n\(logs.joined(separator: "\n"))")
        }
        run.startSending()
        try await acknowledged(run, 3, nodes: nodes)
        return run
    }

    /// Ends a run: sending stops, queues drain, every device reconnects and replays, and the
    /// history is checked against `store`. Prints and returns the report.
    private static func finish(
        _ run: FaultRun, _ name: String, recovery: [String], store: () async throws -> [StoredEvent]
    ) async throws -> HistoryReport {
        await run.stopSending()
        let drained = try await run.drained()
        try await run.reconnectAll()
        let report = try await run.check(store: store)
        print("fault \(name): \(report); \(recovery.joined(separator: ", "))\(drained ? "" : "; some queues never drained")")
        await run.end()
        #expect(drained, "every device's queue drains once the fault heals")
        #expect(report.violations.isEmpty, "\(name): \(report.violations)")
        #expect(report.acknowledged > 0)
        #expect(report.reordered == 0, "\(name): \(report.orderViolations)")
        return report
    }

    /// Seconds from `start` to `end`, for the report.
    private static func seconds(_ start: Date, _ end: Date?) -> String {
        end.map { String(format: "%.1f s", $0.timeIntervalSince(start)) } ?? "never"
    }

    @Test("PostgreSQL stopped hard for 10 s under two serving nodes: not ready while down, nothing acknowledged lost or doubled")
    func postgresRestarts() async throws {
        let cluster = try await PostgresCluster.start()
        let database = try await cluster.newDatabase()
        let nodes = [try NodeProcess(database: database), try NodeProcess(database: database)]
        let run = try await Self.chatting(on: nodes)
        let urls = run.nodes
        try await cluster.stopImmediately()
        let notReady = try await eventually(timeout: .seconds(10)) {
            var statuses: [Int] = []
            for url in urls { statuses.append(await Self.readiness(of: url)) }
            return statuses == [503, 503]
        }
        #expect(notReady, "a node without its database answers /readyz with 503")
        try await Self.hold(.seconds(10))
        try await cluster.start()
        let healed = Date()
        let ready = try await eventually(timeout: .seconds(60)) {
            var statuses: [Int] = []
            for url in urls { statuses.append(await Self.readiness(of: url)) }
            return statuses == [200, 200]
        }
        let readyAt = Date()
        #expect(ready, "both nodes are ready again once the database is back")
        try await Self.acknowledged(run, 1, since: healed, nodes: nodes)
        _ = try await Self.finish(
            run, "postgres-restart",
            recovery: [
                "ready again after \(Self.seconds(healed, readyAt))",
                "first ack after \(Self.seconds(healed, run.firstAcknowledgement(on: 0, after: healed))) (node 1)",
                "\(Self.seconds(healed, run.firstAcknowledgement(on: 1, after: healed))) (node 2)",
            ]
        ) { try await StoredEvents.postgres(cluster, database: database) }
        withExtendedLifetime(nodes) {}  // the nodes serve until the run is checked
    }

    @Test("PostgreSQL unreachable from one node for 30 s, packets held and nothing closed: not ready, nothing acknowledged lost")
    func postgresUnreachable() async throws {
        let cluster = try await PostgresCluster.start()
        let database = try await cluster.newDatabase()
        let proxy = try await StallingProxy.start(to: cluster.port)
        let throughProxy = database.replacingOccurrences(of: ":\(cluster.port)/", with: ":\(proxy.port)/")
        let nodes = [try NodeProcess(database: throughProxy), try NodeProcess(database: database)]
        let run = try await Self.chatting(on: nodes)
        let urls = run.nodes
        try await proxy.stall()
        let notReady = try await eventually(timeout: .seconds(20)) { await Self.readiness(of: urls[0]) == 503 }
        #expect(notReady, "a node whose database does not answer says it is not ready, in time")
        #expect(await Self.readiness(of: urls[1]) == 200, "the other node is ready")
        try await Self.hold(.seconds(30))
        try await proxy.resume()
        let healed = Date()
        let ready = try await eventually(timeout: .seconds(60)) { await Self.readiness(of: urls[0]) == 200 }
        let readyAt = Date()
        #expect(ready)
        try await Self.acknowledged(run, 1, since: healed, nodes: nodes)
        _ = try await Self.finish(
            run, "postgres-unreachable",
            recovery: [
                "ready again after \(Self.seconds(healed, readyAt))",
                "first ack on the cut node after \(Self.seconds(healed, run.firstAcknowledgement(on: 0, after: healed)))",
            ]
        ) { try await StoredEvents.postgres(cluster, database: database) }
        await proxy.close()
        withExtendedLifetime(nodes) {}  // the nodes serve until the run is checked
    }

    @Test("A node paused (SIGSTOP) for 15 s while its devices' peers send on the other node: nothing acknowledged lost or doubled")
    func nodePaused() async throws {
        let cluster = try await PostgresCluster.start()
        let database = try await cluster.newDatabase()
        let nodes = [try NodeProcess(database: database), try NodeProcess(database: database)]
        let run = try await Self.chatting(on: nodes)
        nodes[0].pause()
        try await Self.hold(.seconds(15))
        nodes[0].resume()
        let healed = Date()
        try await Self.acknowledged(run, 1, since: healed, nodes: nodes)
        _ = try await Self.finish(
            run, "node-paused",
            recovery: ["first ack on the paused node after \(Self.seconds(healed, run.firstAcknowledgement(on: 0, after: healed)))"]
        ) { try await StoredEvents.postgres(cluster, database: database) }
        withExtendedLifetime(nodes) {}  // the nodes serve until the run is checked
    }

    /// Waits until a message a device receives after `date` carries a timestamp `offset` seconds
    /// (within a minute) from when it arrived: the node's wall clock has jumped.
    private static func nodeClock(of run: FaultRun, isOff offset: TimeInterval, since date: Date) async throws -> Bool {
        try await eventually(timeout: .seconds(30)) {
            run.members.contains { member in
                member.history.frames.contains { frame in
                    guard frame.direction == .server, frame.timestamp > date,
                        let object = try? JSONSerialization.jsonObject(with: Data(frame.text.utf8)) as? [String: Any],
                        object["type"] as? String == "message", let milliseconds = object["timestamp"] as? Double
                    else { return false }
                    return abs(milliseconds / 1000 - frame.timestamp.timeIntervalSince1970 - offset) < 60
                }
            }
        }
    }

    @Test(
        "A single node's wall clock jumps back 15 minutes, then forward 25: rate windows, pairing expiry, tokens and keepalive hold",
        .enabled(if: JumpingClock.library != nil, "needs libfaketime (Debian's faketime)"))
    func clockJumps() async throws {
        // The node starts 10 minutes ahead: every device is paired, and every token issued, then.
        let clock = try JumpingClock(offset: "+10m")
        // Pairing requests live a minute here, so the forward jump is 25 times their lifetime.
        let node = try NodeProcess(["--pairing-request-lifetime", "60"], environment: clock.environment)
        try await Self.jump(clock, on: [node], "clock-jumps") { try await StoredEvents.sqlite(dataDirectory: node.dataDirectory) }
    }

    @Test(
        "One of two nodes' wall clock jumps back 15 minutes, then forward 25, while the other keeps time: the same holds",
        .enabled(if: JumpingClock.library != nil, "needs libfaketime (Debian's faketime)"))
    func clockJumpsOnOneOfTwoNodes() async throws {
        let cluster = try await PostgresCluster.start()
        let database = try await cluster.newDatabase()
        let clock = try JumpingClock(offset: "+10m")
        let lifetime = ["--pairing-request-lifetime", "60"]
        let nodes = [try NodeProcess(database: database, lifetime, environment: clock.environment), try NodeProcess(database: database, lifetime)]
        try await Self.jump(clock, on: nodes, "clock-jumps-two-nodes") { try await StoredEvents.postgres(cluster, database: database) }
    }

    /// The clock-jump fault: `clock` (the first node's, 10 minutes ahead) goes 15 minutes back,
    /// then 25 forward while a pairing request waits for the admin, then back again before a
    /// device paired "later" authenticates; the devices chat throughout.
    private static func jump(
        _ clock: JumpingClock, on nodes: [NodeProcess], _ name: String, store: () async throws -> [StoredEvent]
    ) async throws {
        let run = try await Self.chatting(on: nodes)
        #expect(try await Self.nodeClock(of: run, isOff: 600, since: .distantPast), "the node starts 10 minutes ahead")

        try clock.set("-5m")
        let back = Date()
        #expect(try await Self.nodeClock(of: run, isOff: -300, since: back), "the node's clock went back 15 minutes")
        try await Self.acknowledged(run, 3, since: back, nodes: nodes)

        // A pairing request waiting for the admin while the clock jumps forward 25 minutes is
        // still waiting after it: its expiry counts elapsed time.
        let (extra, _) = FaultRun.newDevice(on: run.nodes[0])
        let admin = run.members[0]
        let result = try await ApprovalTests.pairThroughAdmin(admin: admin.device, tablet: extra, requests: run.approvals) {
            connection, request in
            try clock.set("+20m")
            let forward = Date()
            #expect(try await Self.nodeClock(of: run, isOff: 1200, since: forward), "the node's clock went forward 25 minutes")
            // The message rate's windows count elapsed time too: the devices go on sending.
            try await Self.acknowledged(run, 3, since: forward, nodes: nodes)
            try await connection.approvePairing(deviceId: request.deviceId, userId: admin.credentials.userId)
        }
        guard case .success(let credentials) = result else { throw ClientTestFailure("the pairing did not survive the jump: \(result)") }

        // Back again: a token issued 25 minutes "later" still authenticates (its expiry is what counts).
        try clock.set("-5m")
        let again = Date()
        #expect(try await Self.nodeClock(of: run, isOff: -300, since: again))
        try await extra.chat.connect(token: credentials.token, lastMessageId: nil)
        await extra.chat.disconnect()
        // The keepalive counts elapsed time: no jump closed a socket, so each device is still on its first.
        let sockets = run.members.map { Set($0.history.frames.map(\.connection)) }
        #expect(sockets.allSatisfy { $0 == ["chat-1"] }, "sockets: \(sockets)")
        _ = try await Self.finish(run, name, recovery: ["no socket closed by a jump"], store: store)
        withExtendedLifetime(nodes) {}  // the nodes serve until the run is checked
    }

    @Test(
        "The disk under a single node's SQLite store fills up, then frees: refused while full, nothing acknowledged lost",
        .enabled(if: getuid() == 0, "mounting a small filesystem needs root"))
    func diskFull() async throws {
        let mount = try await SmallFilesystem.mount(megabytes: 16)
        defer { mount.unmount() }
        let node = try NodeProcess([], in: mount.directory)
        let run = try await Self.chatting(on: [node])
        try mount.fill()
        let refused = try await eventually(timeout: .seconds(30)) {
            run.members.contains { member in member.history.frames.contains { HistoryFrame($0.text)?.code == "server_error" } }
        }
        #expect(refused, "a message the full disk cannot take is refused with server_error")
        try await Self.hold(.seconds(5))
        try mount.free()
        let healed = Date()
        try await Self.acknowledged(run, 1, since: healed, nodes: [node])
        _ = try await Self.finish(
            run, "disk-full", recovery: ["first ack after \(Self.seconds(healed, run.firstAcknowledgement(on: 0, after: healed)))"]
        ) { try await StoredEvents.sqlite(dataDirectory: node.dataDirectory) }
    }
}
