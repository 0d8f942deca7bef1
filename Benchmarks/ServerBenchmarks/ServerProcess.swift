import Foundation

/// A server under test, in its own process, so its CPU time and memory are its own.
final class ServerProcess {
    let process = Process()
    let port: Int
    /// The cores every server runs on (`taskset -c`), or `nil` for any.
    nonisolated(unsafe) static var cores: String?

    /// Starts `executable` with `arguments` (on ``cores`` when they are set) and waits for its
    /// `listening on http://HOST:PORT` line.
    init(_ executable: String, _ arguments: [String]) throws {
        if let cores = Self.cores {
            // taskset runs the server in its own process (it execs it): the pid is the server's.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", cores, executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchmarkError("\(executable) exited before it listened") }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let port = text.split(separator: "\n").first?.split(separator: ":").last.flatMap({ Int($0) }) else {
            throw BenchmarkError("unexpected first line from \(executable): \(text)")
        }
        self.port = port
    }

    /// `clawline-server serve` on a free port with `dataDirectory`, its per-address limits raised
    /// for a load generator whose every socket comes from one address, and `flags`.
    static func clawline(_ executable: String, dataDirectory: String, flags: [String] = []) throws -> ServerProcess {
        try ServerProcess(
            executable,
            [
                "serve", "--port", "0", "--data-dir", dataDirectory, "--max-connections-per-address", "1000000",
                "--max-pending-pairings-per-address", "1000", "--max-device-ids-per-address", "1000000",
            ] + flags)
    }

    /// CPU seconds (user and system) the process used so far.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        // After the command: state is field 3, utime field 14 and stime field 15 (1-based in proc(5)).
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory in bytes.
    var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return kilobytes * 1024
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
