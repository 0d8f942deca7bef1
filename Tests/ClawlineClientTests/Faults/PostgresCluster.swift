import Foundation
import WireTestSupport

/// A PostgreSQL cluster of the fault suite's own (Debian's `postgresql` package), which the suite
/// may stop hard and start again without disturbing the database other tests share. Trust
/// authentication, loopback only, a free port, a temporary directory; run as root it runs as the
/// `postgres` user, as `Scripts/throwaway-postgres` does.
final class PostgresCluster: Sendable {
    let directory: URL
    let port: Int
    private let bin: URL

    /// The newest installed PostgreSQL's programs, if there is one.
    static var programs: URL? {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return versions.compactMap(Int.init).sorted().last.map { root.appendingPathComponent("\($0)/bin") }
            .flatMap { FileManager.default.fileExists(atPath: $0.appendingPathComponent("initdb").path) ? $0 : nil }
    }

    private static var asRoot: Bool { getuid() == 0 }

    /// Creates and starts a cluster.
    static func start() async throws -> PostgresCluster {
        guard let bin = programs else { throw ClientTestFailure("PostgreSQL is not installed (apt-get install postgresql)") }
        let cluster = PostgresCluster(bin: bin, port: try await freePort())
        if asRoot { _ = try await run(URL(fileURLWithPath: "/bin/chown"), ["postgres", cluster.directory.path]) }
        try await cluster.owner("initdb", ["-D", cluster.data, "-A", "trust", "-U", "clawline"])
        try await cluster.start()
        try await cluster.owner("createdb", ["-h", "127.0.0.1", "-p", "\(cluster.port)", "-U", "clawline", "clawline"])
        return cluster
    }

    private init(bin: URL, port: Int) {
        self.bin = bin
        self.port = port
        directory = URL(fileURLWithPath: "/tmp/clawline-faults-pg-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        // The cluster must not outlive the suite, whatever happened to it.
        let stop = Process()
        stop.executableURL = Self.asRoot ? URL(fileURLWithPath: "/usr/sbin/runuser") : bin.appendingPathComponent("pg_ctl")
        stop.arguments =
            (Self.asRoot ? ["-u", "postgres", "--", bin.appendingPathComponent("pg_ctl").path] : []) + ["-D", data, "stop", "-m", "immediate"]
        stop.standardOutput = FileHandle.nullDevice
        stop.standardError = FileHandle.nullDevice
        try? stop.run()
        stop.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    private var data: String { directory.appendingPathComponent("data").path }

    /// The URL of the database `name` (`clawline` is created with the cluster).
    func url(_ name: String = "clawline", port: Int? = nil) -> String { "postgres://clawline@127.0.0.1:\(port ?? self.port)/\(name)" }

    /// A new, empty database; its URL.
    func newDatabase() async throws -> String {
        let name = "f_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))"
        _ = try await query("CREATE DATABASE \(name)")
        return url(name)
    }

    /// Starts the cluster and waits until it accepts connections. The server it leaves running
    /// must hold none of this process's descriptors: Foundation learns that a child ended when
    /// the last holder of a socket it shares with the child closes it, and a server holding one
    /// would hide the end of `pg_ctl` (and of any node started before it). So `pg_ctl` runs from
    /// a shell that closes every descriptor but the standard three, which go nowhere.
    func start() async throws {
        let pgctl = bin.appendingPathComponent("pg_ctl").path
        let command =
            (Self.asRoot ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [
                pgctl, "-D", data, "-l", directory.appendingPathComponent("log").path, "-w", "-o",
                "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1", "start",
            ]
        let closeAndRun = #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && exec {fd}>&-; done 2>/dev/null; exec "$@""#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", closeAndRun, "bash"] + command
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let status = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        guard status == 0 else {
            // The directory goes with the cluster, so the failure carries the server's last words.
            let log = (try? String(contentsOf: directory.appendingPathComponent("log"), encoding: .utf8)) ?? ""
            let tail = log.split(separator: "\n").suffix(8).joined(separator: "\n")
            throw ClientTestFailure("pg_ctl start failed (\(status)) on port \(port); the server's log ends:\n\(tail)")
        }
    }

    /// Stops the cluster at once (`pg_ctl stop -m immediate`: every backend is killed, nothing is
    /// checkpointed, the next start recovers from the write-ahead log), as a crash would.
    func stopImmediately() async throws {
        try await owner("pg_ctl", ["-D", data, "-w", "stop", "-m", "immediate"])
    }

    /// Runs `sql` with psql on `database` (the cluster's own by default); its output, unaligned and tab-separated.
    func query(_ sql: String, on database: String? = nil) async throws -> String {
        let result = try await Self.run(
            bin.appendingPathComponent("psql"), [database ?? url(), "-v", "ON_ERROR_STOP=1", "-tAF", "\t", "-c", sql])
        return result.stdout
    }

    private func owner(_ program: String, _ arguments: [String]) async throws {
        let path = bin.appendingPathComponent(program)
        if Self.asRoot {
            _ = try await Self.run(URL(fileURLWithPath: "/usr/sbin/runuser"), ["-u", "postgres", "--", path.path] + arguments)
        } else {
            _ = try await Self.run(path, arguments)
        }
    }

    @discardableResult
    private static func run(_ executable: URL, _ arguments: [String]) async throws -> WireTool.Run {
        let result = try await ChildProcess.run(executable, arguments)
        guard result.status == 0 else {
            throw ClientTestFailure("\(executable.lastPathComponent) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result
    }

    /// A TCP port nothing listens on now, below the kernel's range of ephemeral ports. The fault
    /// suite stops the cluster and starts it again on its port; while it is down, other tests'
    /// outgoing connections (thousands, some of them) take ephemeral ports, and one given this
    /// port would keep the restarted server from binding it. A port below the range is never
    /// handed out that way.
    static func freePort() async throws -> Int {
        let ephemeralStart = ephemeralPortRangeStart()
        guard ephemeralStart > 10_001 else { return try bound(to: 0) }
        for _ in 0..<200 {
            if let port = try? bound(to: Int.random(in: 10_000..<ephemeralStart)) { return port }
        }
        throw ClientTestFailure("no free port between 10000 and \(ephemeralStart) in 200 tries")
    }

    /// The first port of the kernel's ephemeral range (Linux's default when it cannot be read).
    private static func ephemeralPortRangeStart() -> Int {
        let range = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        return range?.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32_768
    }

    /// Binds a socket to `port` on 127.0.0.1 (any free port for 0) and closes it; the port bound.
    private static func bound(to port: Int) throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw ClientTestFailure("port \(port) is taken: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
