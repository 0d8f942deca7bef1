import ClawlineProtocol
import Foundation

/// Many idle authenticated sockets on one `clawline-server`: the resident memory each one costs,
/// and the ack latency of one device chatting beside them (`ServerBenchmarks idle [SOCKETS] [SECONDS]`).
///
/// The chatting device is timed for `seconds` alone, then again while every idle socket is held.
/// Keep `seconds` above the spec's ping interval (30 s) so the second run sees the server ping
/// every idle socket once.
enum IdleSockets {
    /// Devices paired, and sockets authenticated, at once.
    static let width = 32

    static func run(server executable: String, sockets: Int, seconds: Int) async throws {
        // The chatting device's socket counts too.
        let sockets = try raiseDescriptorLimit(for: sockets + 1) - 1
        try await measureEcho(sockets: sockets)
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-idle-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try ServerProcess.clawline(executable, dataDirectory: data)
        defer { server.stop() }
        let pairing = ContinuousClock.now
        let fleet = try await Fleet.pair(port: server.port, devices: sockets + 1, width: width)
        say("paired \(fleet.devices.count) devices in \(elapsedText(since: pairing))")

        let alone = try await Load.clawline(fleet: fleet, devices: 1, seconds: seconds, server: server)
        report("one device chatting, no idle socket", alone)

        let before = server.residentBytes
        let opening = ContinuousClock.now
        let idle = try await fleet.authenticateConcurrently(Array(fleet.devices.dropFirst()), width: width)
        defer { for socket in idle { socket.close() } }
        let opened = elapsedText(since: opening)
        // Let the server finish what the last authentications started before reading its memory.
        try await Task.sleep(for: .seconds(2))
        let heldBytes = Double(server.residentBytes - before)
        let perSocket = heldBytes / Double(idle.count)
        let allMiB = heldBytes / 1_048_576
        say(
            "\(idle.count) idle authenticated sockets opened in \(opened): "
                + String(format: "%.1f KiB resident memory each (%.0f MiB in all)", perSocket / 1024, allMiB))

        let beside = try await Load.clawline(fleet: fleet, devices: 1, seconds: seconds, server: server)
        report("one device chatting beside \(idle.count) idle sockets", beside)
        let after = server.residentBytes
        say("resident memory after the second run: \(after >> 20) MiB (\((after - before) >> 20) MiB above the start)")
    }

    /// The floor: the resident memory each idle socket costs the bare Hummingbird echo (one
    /// message echoed on each, so every socket is open and upgraded before it is counted).
    static func measureEcho(sockets: Int) async throws {
        let echo = try ServerProcess(CommandLine.arguments[0], ["echo-server"])
        defer { echo.stop() }
        let url = "ws://127.0.0.1:\(echo.port)/ws"
        let before = echo.residentBytes
        let held = try await concurrently(sockets, width: width) { _ in
            let socket = BenchSocket(url)
            socket.send("hello")
            guard await socket.next() != nil else { throw BenchmarkError("the echo closed a socket") }
            return socket
        }
        defer { for socket in held { socket.close() } }
        try await Task.sleep(for: .seconds(2))
        let perSocket = Double(echo.residentBytes - before) / Double(held.count)
        say("bare Hummingbird echo: \(held.count) idle sockets, " + String(format: "%.1f KiB resident memory each", perSocket / 1024))
    }

    /// The time since `start`, in seconds with one decimal.
    static func elapsedText(since start: ContinuousClock.Instant) -> String {
        let elapsed = start.duration(to: .now)
        return String(format: "%.1f s", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Open files each process keeps beside the sockets (listener, store files, event loops, pipes).
    static let reservedDescriptors = 100

    /// Raises this process's open-file limit (which the server inherits) as far as `wanted`, and
    /// returns how many sockets fit: `wanted` less the reserve, or fewer when the hard limit is
    /// lower and cannot be raised (raising it needs CAP_SYS_RESOURCE).
    static func raiseDescriptorLimit(for sockets: Int) throws -> Int {
        var limit = rlimit()
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { throw BenchmarkError("cannot read the open-file limit (getrlimit: errno \(errno))") }
        let wanted = rlim_t(sockets + reservedDescriptors)
        var raised = rlimit(rlim_cur: max(limit.rlim_cur, wanted), rlim_max: max(limit.rlim_max, wanted))
        if setrlimit(resource, &raised) != 0 {
            // The hard limit stays: take the soft one up to it.
            raised = rlimit(rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max)
            guard setrlimit(resource, &raised) == 0 else { throw BenchmarkError("cannot raise the open-file limit (setrlimit: errno \(errno))") }
        }
        let fitting = min(sockets, Int(clamping: raised.rlim_cur) - reservedDescriptors)
        if fitting < sockets {
            say(
                "the open-file limit is \(raised.rlim_cur) and cannot be raised here (CAP_SYS_RESOURCE is needed): "
                    + "\(fitting) sockets instead of \(sockets)")
        }
        return fitting
    }
}

extension Fleet {
    /// Pairs `devices` devices, each into an account of its own, `width` at a time: the first
    /// device becomes admin and approves every other as its request arrives.
    static func pair(port: Int, devices: Int, width: Int = IdleSockets.width) async throws -> Fleet {
        let url = "ws://127.0.0.1:\(port)/ws"
        let adminID = UUID().uuidString
        let admin = try await pairFirst(url: url, deviceID: adminID)
        let adminSocket = try await open(url: url, deviceID: adminID, token: admin.token)
        defer { adminSocket.close() }
        let approvals = max(devices, 2) - 1
        let approver = Task {
            for _ in 0..<approvals {
                guard
                    case .pairApprovalRequest(let request) = try await read(
                        adminSocket,
                        until: { frame in
                            if case .pairApprovalRequest = frame { true } else { false }
                        })
                else { continue }
                adminSocket.send(
                    ClientFrame.pairDecision(PairDecision(deviceId: request.deviceId, approve: true, userId: UserId(newAccountID())))
                        .encodedText())
            }
        }
        defer { approver.cancel() }
        let paired = try await concurrently(approvals, width: width) { _ in
            let deviceID = UUID().uuidString
            let socket = BenchSocket(url)
            defer { socket.close() }
            socket.send(ClientFrame.pairRequest(PairRequest(deviceId: DeviceId(deviceID), deviceInfo: info)).encodedText())
            guard case .pairResult(.success(let success)) = try await read(socket, until: { if case .pairResult = $0 { true } else { false } })
            else { throw BenchmarkError("pairing was refused") }
            return (deviceID: deviceID, token: success.token)
        }
        return Fleet(url: url, devices: paired)
    }

    /// Authenticated sockets of `devices`, `width` at a time.
    func authenticateConcurrently(_ devices: [(deviceID: String, token: String)], width: Int) async throws -> [BenchSocket] {
        let url = url
        return try await concurrently(devices.count, width: width) { index in
            try await Self.open(url: url, deviceID: devices[index].deviceID, token: devices[index].token)
        }
    }
}

/// Runs `work` for every index below `count`, at most `width` at once; the results in index order.
func concurrently<Result: Sendable>(
    _ count: Int, width: Int, _ work: @escaping @Sendable (Int) async throws -> Result
) async throws -> [Result] {
    try await withThrowingTaskGroup(of: (Int, Result).self) { group in
        var results = [Result?](repeating: nil, count: count)
        var next = 0
        func start() {
            let index = next
            next += 1
            group.addTask { (index, try await work(index)) }
        }
        while next < min(width, count) { start() }
        while let (index, result) = try await group.next() {
            results[index] = result
            if next < count { start() }
        }
        return results.map { $0! }
    }
}
