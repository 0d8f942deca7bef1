import ClawlineProtocol
import Foundation

/// What one load run measured.
struct LoadRun {
    var messages: Int
    /// Frames the load generator's sockets received in the run: what the server wrote.
    var frames: Int
    var seconds: Double
    var latencies: [Double]
    var serverCPUSeconds: Double
    /// The load generator's own CPU time in the run (it shares the machine with the server).
    var generatorCPUSeconds: Double

    var rate: Double { Double(messages) / seconds }
    /// Messages and frames per second of the servers' CPU time (0 when they took none).
    var messagesPerCPUSecond: Double { serverCPUSeconds > 0 ? Double(messages) / serverCPUSeconds : 0 }
    var framesPerCPUSecond: Double { serverCPUSeconds > 0 ? Double(frames) / serverCPUSeconds : 0 }
    /// Frames the servers wrote for each message.
    var framesPerMessage: Double { Double(frames) / Double(max(messages, 1)) }
    /// The cores the servers and the load generator kept busy, on average.
    var serverCores: Double { serverCPUSeconds / seconds }
    var generatorCores: Double { generatorCPUSeconds / seconds }
    var p50: Double { percentile(0.50) }
    var p99: Double { percentile(0.99) }

    private func percentile(_ fraction: Double) -> Double {
        guard !latencies.isEmpty else { return 0 }
        let sorted = latencies.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }
}

/// Paired devices of one server: an admin that approved the others, each in its own account.
struct Fleet {
    var url: String
    var devices: [(deviceID: String, token: String)]

    static let info = DeviceInfo(platform: "Linux", model: "load generator")

    /// A new account's id: `user_` and a version 4 UUID, as the provider requires.
    static func newAccountID() -> String { "user_" + UUID().uuidString.lowercased() }

    /// Pairs a new device that the admin on `admin` approves into the account `userID`.
    static func pairApproved(url: String, admin: BenchSocket, into userID: String) async throws -> (deviceID: String, token: String) {
        let deviceID = UUID().uuidString
        let pairing = BenchSocket(url)
        defer { pairing.close() }
        pairing.send(ClientFrame.pairRequest(PairRequest(deviceId: DeviceId(deviceID), deviceInfo: info)).encodedText())
        _ = try await read(admin) { if case .pairApprovalRequest = $0 { true } else { false } }
        admin.send(ClientFrame.pairDecision(PairDecision(deviceId: DeviceId(deviceID), approve: true, userId: UserId(userID))).encodedText())
        guard case .pairResult(.success(let success)) = try await read(pairing, until: { if case .pairResult = $0 { true } else { false } })
        else { throw BenchmarkError("pairing was refused") }
        return (deviceID, success.token)
    }

    /// Pairs the first device of a server (it becomes admin at once).
    static func pairFirst(url: String, deviceID: String) async throws -> PairSuccess {
        let socket = BenchSocket(url)
        defer { socket.close() }
        socket.send(ClientFrame.pairRequest(PairRequest(deviceId: DeviceId(deviceID), deviceInfo: info)).encodedText())
        guard case .pairResult(.success(let success)) = try await read(socket, until: { _ in true }) else {
            throw BenchmarkError("the first device was not paired; use an empty data directory or a fresh database")
        }
        return success
    }

    /// An authenticated socket.
    static func open(url: String, deviceID: String, token: String) async throws -> BenchSocket {
        let socket = BenchSocket(url)
        socket.send(ClientFrame.auth(Auth(token: token, deviceId: DeviceId(deviceID))).encodedText())
        guard case .authResult(.success) = try await read(socket, until: { if case .authResult = $0 { true } else { false } }) else {
            throw BenchmarkError("authentication failed")
        }
        return socket
    }

    /// Authenticated sockets of the first `count` devices, spread over `urls` in turn (the
    /// fleet's server by default).
    func authenticate(count: Int, urls: [String]? = nil) async throws -> [BenchSocket] {
        let urls = urls ?? [url]
        var sockets: [BenchSocket] = []
        for (index, device) in devices.prefix(count).enumerated() {
            sockets.append(try await Self.open(url: urls[index % urls.count], deviceID: device.deviceID, token: device.token))
        }
        return sockets
    }

    /// Reads server frames until one matches. With `mentioning`, only frames whose text has one
    /// of those strings are decoded (the load generator skips the streams it does not time).
    static func read(_ socket: BenchSocket, mentioning: [String]? = nil, until matches: (ServerFrame) -> Bool) async throws -> ServerFrame {
        while let text = await socket.next() {
            if let mentioning, !mentioning.contains(where: text.contains) { continue }
            guard case .decoded(let frame, _) = ServerFrame.decode(text: text) else { throw BenchmarkError("invalid frame: \(text)") }
            if matches(frame) { return frame }
        }
        throw BenchmarkError("the socket closed")
    }
}

enum Load {
    /// How often a device sends: every 220 ms, within the spec's 5 per second.
    static let pace = Duration.milliseconds(220)
    /// The messages per second one device offers.
    static let messagesPerDevice = 1000.0 / 220

    /// Each socket sends a 200-byte text and waits for it to come back, as fast as it can.
    static func echo(port: Int, sockets count: Int, seconds: Int, server: ServerProcess) async throws -> LoadRun {
        let sockets = (0..<count).map { _ in BenchSocket("ws://127.0.0.1:\(port)/ws") }
        let payload = String(repeating: "x", count: 200)
        return await measure(sockets: sockets, seconds: seconds, servers: [server]) { socket in
            socket.send(payload)
            return await socket.next() != nil
        }
    }

    /// The provider's traffic on the bare echo (started with `copies` copies): `sockets` paced as
    /// the provider's devices are, each sending a chat message's text every 220 ms and waiting
    /// for its copies. The server then reads the frames the provider reads and writes as many as
    /// it writes, on as many sockets, and does nothing else with them.
    static func echo(port: Int, pacedSockets count: Int, copies: Int, seconds: Int, server: ServerProcess) async throws -> LoadRun {
        let sockets = (0..<count).map { _ in BenchSocket("ws://127.0.0.1:\(port)/ws") }
        defer { for socket in sockets { socket.close() } }
        let text = ClientFrame.message(ClientMessage(id: ClientMessageId("c_0"), content: "hello from the load generator")).encodedText()
        return await measure(sockets: sockets, seconds: seconds, servers: [server], pace: pace) { socket in
            socket.send(text)
            for _ in 0..<max(1, copies) {
                guard await socket.next() != nil else { return false }
            }
            return true
        }
    }

    /// Each device sends a chat message every 220 ms (the spec allows 5 per second) and waits for
    /// its `ack`; the echo assistant answers each one with a stream the device reads on the way.
    static func clawline(fleet: Fleet, devices: Int, seconds: Int, server: ServerProcess) async throws -> LoadRun {
        try await clawline(fleet: fleet, devices: devices, seconds: seconds, servers: [server], urls: nil)
    }

    /// The same load with the devices spread over several nodes; CPU time is the nodes' sum.
    static func clawline(fleet: Fleet, devices: Int, seconds: Int, servers: [ServerProcess], urls: [String]?) async throws -> LoadRun {
        // The devices' rate windows are kept across connections: let the last run's slide out.
        try await Task.sleep(for: .seconds(1))
        let sockets = try await fleet.authenticate(count: devices, urls: urls)
        defer { for socket in sockets { socket.close() } }
        let counter = Counter()
        let refusals = Refusals()
        defer { refusals.report() }
        // Ids unique across runs too: a device that sent an id in an earlier run would be
        // answered as a retry of it (an `ack` alone, or a conflict if its answer was cut short).
        let run = UUID().uuidString.prefix(8).lowercased()
        return await measure(sockets: sockets, seconds: seconds, servers: servers, pace: pace) { socket in
            let id = "c_\(run)_\(counter.next())"
            socket.send(ClientFrame.message(ClientMessage(id: ClientMessageId(id), content: "hello from the load generator")).encodedText())
            // An error (a rate limit, if the pace were broken) ends this socket's run.
            let answer = try? await Fleet.read(socket, mentioning: [#""ack""#, #""error""#]) { frame in
                switch frame {
                case .ack(let ack): ack.id.rawValue == id
                case .error: true
                default: false
                }
            }
            guard case .ack? = answer else {
                if case .error(let error)? = answer { refusals.count(error.code.rawValue, error.message) }
                return false
            }
            return true
        }
    }

    /// Runs `exchange` on every socket in a loop for `seconds` (at most once per `pace`), timing each.
    static func measure(
        sockets: [BenchSocket], seconds: Int, servers: [ServerProcess], pace: Duration? = nil,
        exchange: @escaping @Sendable (BenchSocket) async -> Bool
    ) async -> LoadRun {
        let cpuBefore = servers.map(\.cpuSeconds).reduce(0, +)
        let generatorBefore = ownCPUSeconds()
        let framesBefore = BenchSocket.framesReceived.withLockedValue { $0 }
        let start = ContinuousClock.now
        let end = start.advanced(by: .seconds(seconds))
        let latencies = await withTaskGroup(of: [Double].self) { group in
            for (index, socket) in sockets.enumerated() {
                group.addTask {
                    var latencies: [Double] = []
                    var slot = ContinuousClock.now
                    if let pace {
                        // Devices do not send in lockstep: the first sends are spread evenly over
                        // one pace, so the offered load is steady rather than one burst per pace.
                        slot = start.advanced(by: pace * (Double(index) / Double(sockets.count)))
                        try? await Task.sleep(until: slot)
                    }
                    while ContinuousClock.now < end {
                        let sent = ContinuousClock.now
                        guard await exchange(socket) else { break }
                        let elapsed = sent.duration(to: .now)
                        latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
                        if let pace {
                            // Never closer than `pace` to the last send, even after a slow answer.
                            slot = max(slot.advanced(by: pace), sent.advanced(by: pace))
                            try? await Task.sleep(until: slot)
                        }
                    }
                    return latencies
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        let elapsed = start.duration(to: .now)
        return LoadRun(
            messages: latencies.count, frames: BenchSocket.framesReceived.withLockedValue { $0 } - framesBefore,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            latencies: latencies, serverCPUSeconds: servers.map(\.cpuSeconds).reduce(0, +) - cpuBefore,
            generatorCPUSeconds: ownCPUSeconds() - generatorBefore)
    }

    /// This process's CPU time so far (user and system).
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// The errors that ended devices' runs (a saturated server refuses with `rate_limited`), told once
/// a run is over as a count by code, not a line each.
final class Refusals: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: (count: Int, message: String)] = [:]

    func count(_ code: String, _ message: String) {
        lock.withLock { counts[code] = ((counts[code]?.count ?? 0) + 1, message) }
    }

    /// Writes the counts on standard error, if there were any.
    func report() {
        let counts = lock.withLock { self.counts }
        for (code, entry) in counts.sorted(by: { $0.key < $1.key }) {
            FileHandle.standardError.write(Data("\(entry.count) devices stopped on \(code): \(entry.message)\n".utf8))
        }
    }
}

/// Unique message numbers across tasks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.withLock {
            value += 1
            return value
        }
    }
}
