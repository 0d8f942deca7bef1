import Foundation
import NIOConcurrencyHelpers
import WireTestSupport

/// A `clawline-server serve` process: one node of a provider on a shared PostgreSQL database.
final class NodeProcess: Sendable {
    private let process: Process
    private let output = NIOLockedValueBox(Data())
    let dataDirectory: URL

    /// The `clawline-server` binary built beside the test bundle.
    static var executable: URL { builtProduct("clawline-server") }

    /// Starts a node on `database`.
    init(database: String) throws {
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-node-\(UUID().uuidString)")
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["serve", "--port", "0", "--data-dir", dataDirectory.path, "--database", database]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        let output = output
        out.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLockedValue { $0.append(data) }
        }
        try process.run()
        self.process = process
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// The node's base URL, once it listens.
    func baseURL() async throws -> URL {
        var url: URL?
        let listening = try await eventually(timeout: .seconds(30)) {
            let text = String(decoding: output.withLockedValue { $0 }, as: UTF8.self)
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) else { return false }
            url = URL(string: String(line.dropFirst("listening on ".count)))
            return true
        }
        guard listening, let url else { throw ClientTestFailure("the node did not start listening") }
        return url
    }

    /// Kills the node at once (SIGKILL): nothing is flushed or closed. Returns once it is gone.
    func kill() async throws {
        Foundation.kill(process.processIdentifier, SIGKILL)
        guard try await eventually({ !self.process.isRunning }) else { throw ClientTestFailure("the node outlived SIGKILL") }
    }
}
