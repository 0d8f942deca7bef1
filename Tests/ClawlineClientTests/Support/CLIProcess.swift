import Foundation
import NIOConcurrencyHelpers
import WireTestSupport

/// The built `clawline` binary, run as a user runs it, without blocking a thread of the
/// cooperative pool while it runs.
final class CLIProcess: Sendable {
    private let process: Process
    private let output = NIOLockedValueBox(Data())
    private let errors = NIOLockedValueBox(Data())
    private let exited: AsyncStream<Int32>

    /// The `clawline` binary built beside the test bundle.
    static var executable: URL { builtProduct("clawline") }

    /// Starts `clawline` (or another built executable) with `arguments`; `input` is written to its
    /// standard input, which is then closed.
    init(_ arguments: [String], input: String = "", executable: URL = CLIProcess.executable) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let (exited, exitSink) = AsyncStream<Int32>.makeStream()
        self.exited = exited
        process.terminationHandler = { exitSink.yield($0.terminationStatus) }
        let stdin = Pipe()
        let out = Pipe()
        let err = Pipe()
        process.standardInput = stdin
        process.standardOutput = out
        process.standardError = err
        for (pipe, box) in [(out, output), (err, errors)] {
            pipe.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                box.withLockedValue { $0.append(data) }
            }
        }
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        self.process = process
    }

    var standardOutput: String { String(decoding: output.withLockedValue { $0 }, as: UTF8.self) }
    var standardError: String { String(decoding: errors.withLockedValue { $0 }, as: UTF8.self) }

    /// Waits for the process to exit (killing it after `timeout`, a guard against a hung test);
    /// returns its status.
    func wait(timeout: Duration = .seconds(30)) async -> Int32 {
        let process = process
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            process.terminate()
        }
        defer { watchdog.cancel() }
        for await status in exited {
            // Let the pipes drain.
            try? await Task.sleep(for: .milliseconds(50))
            return status
        }
        return -1
    }

    /// Runs `clawline-server` to the end.
    static func runServer(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let process = try CLIProcess(arguments, executable: NodeProcess.executable)
        let status = await process.wait()
        return (status, process.standardOutput, process.standardError)
    }

    /// Runs `clawline` to the end.
    static func run(_ arguments: [String], input: String = "") async throws -> (status: Int32, output: String, errors: String) {
        let process = try CLIProcess(arguments, input: input)
        let status = await process.wait()
        return (status, process.standardOutput, process.standardError)
    }
}
