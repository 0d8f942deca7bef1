import Foundation
import WireTestSupport

/// A `clawline-server serve` process: one node of a provider on a shared PostgreSQL database.
final class NodeProcess: Sendable {
    private let process: RunningProcess
    let dataDirectory: URL

    /// The `clawline-server` binary built beside the test bundle.
    static var executable: URL { builtProduct("clawline-server") }

    /// Starts a node on `database`.
    init(database: String) throws {
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-node-\(UUID().uuidString)")
        process = try RunningProcess(Self.executable, ["serve", "--port", "0", "--data-dir", dataDirectory.path, "--database", database])
    }

    deinit {
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// The node's base URL, once it listens.
    func baseURL() async throws -> URL {
        var url: URL?
        // A guard against a node that never starts; generous, since CI may run beside other builds.
        let listening = try await eventually(timeout: .seconds(90)) {
            guard let line = process.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) else { return false }
            url = URL(string: String(line.dropFirst("listening on ".count)))
            return true
        }
        guard listening, let url else { throw ClientTestFailure("the node did not start listening: \(process.standardError)") }
        return url
    }

    /// Kills the node at once (SIGKILL): nothing is flushed or closed. Returns once it is gone.
    func kill() async throws {
        try await process.stop(with: SIGKILL)
    }
}
