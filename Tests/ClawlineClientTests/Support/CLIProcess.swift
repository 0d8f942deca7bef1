import Foundation
import WireTestSupport

/// The built `clawline` and `clawline-server` binaries, run as a user runs them.
enum CLIProcess {
    /// The `clawline` binary built beside the test bundle.
    static var executable: URL { builtProduct("clawline") }

    /// Starts `clawline` with `arguments` and an empty, closed standard input.
    static func start(_ arguments: [String]) throws -> RunningProcess {
        try RunningProcess(executable, arguments, input: Data())
    }

    /// Runs `clawline` to the end; `input` is its standard input.
    static func run(_ arguments: [String], input: String = "") async throws -> (status: Int32, output: String, errors: String) {
        let run = try await ChildProcess.run(executable, arguments, input: Data(input.utf8))
        return (run.status, run.stdout, run.stderr)
    }

    /// Runs `clawline-server` to the end.
    static func runServer(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let run = try await ChildProcess.run(NodeProcess.executable, arguments, input: Data())
        return (run.status, run.stdout, run.stderr)
    }
}
