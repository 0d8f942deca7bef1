import Foundation
import NIOConcurrencyHelpers
import WireTestSupport

/// The built `clawline-server` executable, run as an operator would.
final class ServerProcess: Sendable {
    private let process: RunningProcess

    /// The `clawline-server` binary built beside the test bundle.
    static var executable: URL { builtProduct("clawline-server") }

    /// Starts `clawline-server` with `arguments`.
    init(_ arguments: [String]) throws {
        process = try RunningProcess(Self.executable, arguments)
    }

    /// Runs a command to completion: its status, standard output and standard error.
    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let run = try await ChildProcess.run(executable, arguments)
        return (run.status, run.stdout, run.stderr)
    }

    var standardOutput: String { process.standardOutput }
    var standardError: String { process.standardError }

    /// Waits for the `listening on http://HOST:PORT` line and returns the port.
    func port(timeout: Duration = .seconds(60)) async throws -> Int {
        guard await process.waitForOutput(timeout: timeout, until: { $0.contains("\n") }) else {
            if process.isRunning { throw TestFailure("clawline-server did not say it was listening: \(standardError)") }
            throw TestFailure("clawline-server exited: \(standardError)")
        }
        let line = standardOutput.split(separator: "\n").first ?? ""
        guard line.hasPrefix("listening on http://127.0.0.1:"), let port = Int(line.split(separator: ":").last ?? "") else {
            throw TestFailure("unexpected first line: \(line)")
        }
        return port
    }

    /// Sends `signal` and waits (without blocking a thread, at most a minute) for the process to
    /// end; returns its termination status.
    @discardableResult
    func stop(with signal: Int32) async throws -> Int32 {
        try await process.stop(with: signal)
    }
}
