import ClawlineProtocol
import Foundation

// Load generator for the reference server. Run it in release:
//
//     swift build -c release --product clawline-server
//     swift run -c release ServerBenchmarks [DEVICES] [SECONDS] [IDLE-SOCKETS] [--sync-every-commit] [--compare-metrics | --metrics-first]
//         [--same-traffic] [--server-cores LIST]
//     swift run -c release ServerBenchmarks nodes POSTGRES-URL [DEVICES] [SECONDS]
//     swift run -c release ServerBenchmarks idle [SOCKETS (20000)] [SECONDS (35)]
//
// It starts the bare Hummingbird echo server (the upper bound) and `clawline-server` in their
// own processes and measures, side by side: messages per second with their p50/p99 latency and
// the server's CPU time per message, and the resident memory per idle authenticated socket.
//
// The spec caps a device at 5 messages per second, so the server's ceiling is found with many
// devices (DEVICES, 1,000 by default, each sending every 220 ms): the rate they get through is
// the ceiling when their latency has grown (the server was saturated), else only what they
// offered. Half load is then as many devices as offer half the ceiling's rate.
//
// `--compare-metrics` measures a second `clawline-server` with Prometheus metrics on
// (`--metrics-on-public-listener`, scraped once a second as Prometheus would) beside the first,
// which reports to swift-metrics' no-op backend: the cost of metrics, side by side
// (`--metrics-first` measures it first instead).
//
// `--same-traffic` then runs each provider run's traffic on the bare echo: as many devices at the
// same pace, each message's text sent back as many times as the provider wrote frames for one.
// The echo then reads and writes what the provider did and nothing more, and the provider's frames
// per server CPU-second are given as a share of that echo's too. Then the same echo once more,
// storing in the provider's SQLite store what the contract makes a provider keep for each message
// (its claim and echo before the first copy, an answer before the last): the floor of a provider
// that keeps what it acknowledges, and the provider's share of that. `--server-cores 0` runs every
// server on core 0 alone (`taskset`); start the generator on the others (`taskset -c 1`).
//
// `idle` holds SOCKETS idle authenticated sockets on one server (raising the open-file limit)
// and reports the memory each costs, with one chatting device's ack latency alone and beside them.

/// Prints a line at once (standard output may be a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

if CommandLine.arguments.dropFirst().first == "echo-server" {
    try await EchoServer.run(
        copies: CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 1, database: CommandLine.arguments.dropFirst(3).first)
    exit(0)
}

let nodesURL: String? = CommandLine.arguments.dropFirst().first == "nodes" ? CommandLine.arguments.dropFirst(2).first : nil
/// `--server-cores LIST`: the servers run on these cores only (`taskset -c LIST`), so a load
/// generator started on the others (`taskset -c`) never takes their time.
let serverCoresFlag = CommandLine.arguments.firstIndex(of: "--server-cores")
ServerProcess.cores = serverCoresFlag.flatMap { CommandLine.arguments.dropFirst($0 + 1).first }
/// The arguments without `--server-cores` and its list (which may be a number).
let positional = CommandLine.arguments.indices.dropFirst(nodesURL == nil ? 1 : 3).filter { index in
    serverCoresFlag.map { index != $0 && index != $0 + 1 } ?? true
}.map { CommandLine.arguments[$0] }
let numbers = positional.compactMap { Int($0) }
let devices = numbers.count > 0 ? numbers[0] : (nodesURL == nil ? 1000 : 200)
let seconds = numbers.count > 1 ? numbers[1] : 10
let idleSockets = numbers.count > 2 ? numbers[2] : 1000
/// `--same-traffic`: after each provider run, the bare echo under that run's traffic.
let sameTraffic = CommandLine.arguments.contains("--same-traffic")

let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
let clawlineServer = products.appendingPathComponent("clawline-server").path
guard FileManager.default.fileExists(atPath: clawlineServer) else {
    say("build the server first: swift build -c release --product clawline-server")
    exit(2)
}

/// The echo's frames written per server CPU-second, which the other runs are a share of.
nonisolated(unsafe) var echoFramesPerCPUSecond: Double?

func report(_ name: String, _ run: LoadRun) {
    let framesPerCore = run.framesPerCPUSecond
    let share = echoFramesPerCPUSecond.map { String(format: " = %3.0f%% of the echo's", framesPerCore / $0 * 100) } ?? ""
    say(
        name.padding(toLength: 56, withPad: " ", startingAt: 0)
            + String(
                format: "%9.0f msg/s  p50 %6.2f ms  p99 %6.2f ms  %8.0f msg per server CPU-second  (cores: server %.2f, load %.2f)",
                run.rate, run.p50, run.p99, run.messagesPerCPUSecond, run.serverCores, run.generatorCores)
            + "\n" + String(repeating: " ", count: 56)
            + String(
                format: "%6.1f frames written per message, %8.0f frames per server CPU-second", run.framesPerMessage,
                framesPerCore) + share)
}

if let nodesURL {
    try await Nodes.compare(database: nodesURL, server: clawlineServer, devices: devices, seconds: seconds, report: report)
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "idle" {
    let numbers = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    do {
        try await IdleSockets.run(server: clawlineServer, sockets: numbers.first ?? 20_000, seconds: numbers.dropFirst().first ?? 35)
    } catch {
        say("error: \(error)")
        exit(1)
    }
    exit(0)
}

say("\(devices) devices, \(seconds) s per run, \(idleSockets) idle sockets")
let echoSockets = 200
let echo = try ServerProcess(CommandLine.arguments[0], ["echo-server"])
let echoRun = try await Load.echo(port: echo.port, sockets: echoSockets, seconds: seconds, server: echo)
report("bare Hummingbird echo, \(echoSockets) sockets (closed loop)", echoRun)
echoFramesPerCPUSecond = echoRun.serverCPUSeconds > 0 ? echoRun.framesPerCPUSecond : nil
echo.stop()

// `--sync-every-commit` is passed on: SQLite's `FULL`, an fsync per (group) commit.
let syncFlags = CommandLine.arguments.contains("--sync-every-commit") ? ["--sync-every-commit"] : []
let withMetrics = { try await measureClawline("clawline-server with /metrics", flags: syncFlags + ["--metrics-on-public-listener"], scrapes: true) }
// `--metrics-first` swaps the order, to tell the cost of metrics from the cost of going second.
if CommandLine.arguments.contains("--metrics-first") { try await withMetrics() }
try await measureClawline("clawline-server", flags: syncFlags)
if CommandLine.arguments.contains("--compare-metrics") { try await withMetrics() }

/// Memory per idle socket, the ceiling and half load of one `clawline-server` started with `flags`.
func measureClawline(_ name: String, flags: [String], scrapes: Bool = false) async throws {
    let data = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-bench-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: data) }
    let server = try ServerProcess.clawline(clawlineServer, dataDirectory: data, flags: flags)
    defer { server.stop() }
    let scraper = scrapes ? Scraper(port: server.port) : nil
    defer { scraper?.stop() }
    let fleet = try await Fleet.pair(port: server.port, devices: max(devices, idleSockets))
    say("paired \(fleet.devices.count) devices")
    // Memory first, while the heap holds only what pairing left.
    let before = server.residentBytes
    let idle = try await fleet.authenticate(count: idleSockets)
    try await Task.sleep(for: .seconds(1))
    if !idle.isEmpty {
        let perSocket = Double(server.residentBytes - before) / Double(idle.count)
        say("\(name) resident memory per idle authenticated socket: \(String(format: "%.1f", perSocket / 1024)) KiB (\(idle.count) sockets)")
    }
    for socket in idle { socket.close() }
    let ceiling = try await Load.clawline(fleet: fleet, devices: devices, seconds: seconds, server: server)
    report("\(name), \(devices) devices (offer \(Int(Double(devices) * Load.messagesPerDevice)) msg/s)", ceiling)
    let halfLoad = max(1, Int((ceiling.rate / 2 / Load.messagesPerDevice).rounded()))
    let half = try await Load.clawline(fleet: fleet, devices: halfLoad, seconds: seconds, server: server)
    report("\(name), \(halfLoad) devices (half that rate)", half)
    if sameTraffic {
        for (run, count) in [(ceiling, devices), (half, halfLoad)] {
            try await compareWithEchoOfSameTraffic(run, devices: count)
        }
    }
    if let scraper { say("\(name): \(scraper.scrapes) scrapes of /metrics during the runs") }
}

/// Runs the provider's traffic of `run` (its devices, its pace, its frames written per message)
/// on the bare echo, then on the echo that also stores what the provider must (see ``EchoServer``),
/// and reports the provider's frames per server CPU-second as a share of each: what the provider
/// costs beyond moving the same frames, and beyond moving them and keeping what it acknowledges.
func compareWithEchoOfSameTraffic(_ run: LoadRun, devices: Int) async throws {
    let copies = max(1, Int(run.framesPerMessage.rounded()))
    for stores in [false, true] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-echo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var arguments = ["echo-server", String(copies)]
        if stores {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            arguments.append(directory.appendingPathComponent("echo.sqlite").path)
        }
        let echo = try ServerProcess(CommandLine.arguments[0], arguments)
        defer { echo.stop() }
        let echoRun = try await Load.echo(port: echo.port, pacedSockets: devices, copies: copies, seconds: seconds, server: echo)
        let (provider, bare) = (run.framesPerCPUSecond, echoRun.framesPerCPUSecond)
        say(
            "\(stores ? "storing" : "bare") echo of the same traffic, \(devices) devices, \(copies) copies".padding(
                toLength: 56, withPad: " ", startingAt: 0)
                + String(
                    format: "%9.0f msg/s  %8.0f frames per server CPU-second (cores: server %.2f, load %.2f): the provider's %8.0f are %3.0f%% of it",
                    echoRun.rate, bare, echoRun.serverCores, echoRun.generatorCores, provider,
                    bare > 0 ? provider / bare * 100 : 0))
    }
}
