import Foundation
import WireTestSupport

/// A `clawline-server serve` process: one node of a provider on a shared PostgreSQL database.
final class NodeProcess: Sendable {
    private let process: RunningProcess
    let dataDirectory: URL

    /// The `clawline-server` binary built beside the test bundle.
    static var executable: URL { builtProduct("clawline-server") }

    /// Starts a node on `database`, with `arguments` besides.
    convenience init(database: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws {
        try self.init(["--database", database] + arguments, environment: environment)
    }

    /// Starts `clawline-server serve --port 0 --data-dir DIR` with `arguments` and `environment`;
    /// DIR is a new directory in `parent` (the temporary directory by default).
    init(_ arguments: [String], in parent: URL = FileManager.default.temporaryDirectory, environment: [String: String] = [:]) throws {
        dataDirectory = parent.appendingPathComponent("clawline-node-\(UUID().uuidString)")
        let command = [Self.executable.path, "serve", "--port", "0", "--data-dir", dataDirectory.path] + arguments
        // A library preloaded straight into a Swift program can leave it with no command-line
        // arguments (libfaketime does: the node would serve on its defaults). Preloaded into
        // `env` first, which then starts the node, it does not.
        let preloads = environment["LD_PRELOAD"] != nil
        process = try RunningProcess(
            preloads ? URL(fileURLWithPath: "/usr/bin/env") : Self.executable, preloads ? command : Array(command.dropFirst()),
            environment: environment)
    }

    /// What the node wrote so far.
    var standardOutput: String { process.standardOutput }
    var standardError: String { process.standardError }

    deinit {
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// The node's base URL, once it listens.
    func baseURL() async throws -> URL { try await announcedURL("listening on ") }

    /// The URL of the node's `/metrics`, once its metrics listener listens.
    func metricsURL() async throws -> URL { try await announcedURL("metrics on ") }

    /// The URL the node printed on a line starting with `prefix`.
    private func announcedURL(_ prefix: String) async throws -> URL {
        var url: URL?
        // A guard against a node that never starts; generous, since CI may run beside other builds.
        let listening = await process.waitForOutput(timeout: .seconds(90)) { output in
            guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return false }
            url = URL(string: String(line.dropFirst(prefix.count)))
            return true
        }
        guard listening, let url else { throw ClientTestFailure("the node printed no '\(prefix)…' line: \(process.standardError)") }
        return url
    }

    /// Asks the node to shut down (SIGTERM) and waits for it: its exit status and how long it took.
    func terminate() async throws -> (status: Int32, took: Duration) {
        let start = ContinuousClock.now
        let status = try await process.stop(with: SIGTERM)
        return (status, start.duration(to: .now))
    }

    /// Stops the node where it stands (SIGSTOP), as a paused VM or a throttled container would be.
    func pause() { process.send(SIGSTOP) }

    /// Lets a paused node go on (SIGCONT).
    func resume() { process.send(SIGCONT) }

    /// Kills the node at once (SIGKILL): nothing is flushed or closed. Returns once it is gone.
    func kill() async throws {
        try await process.stop(with: SIGKILL)
    }
}
