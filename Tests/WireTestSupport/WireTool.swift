import Foundation

/// Runs the built `wire` executable from the repository root, as a user would.
public enum WireTool {
    public struct Run: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// The `wire` binary built beside the test bundle.
    public static var executable: URL { builtProduct("wire") }

    /// Runs `wire` with arguments and optional standard input, in the repository root. It waits
    /// without blocking a thread (a blocked thread of the small cooperative pool would stall every
    /// other test running beside it).
    public static func run(_ arguments: [String], input: Data? = nil, in directory: URL? = nil) async throws -> Run {
        try await ChildProcess.run(executable, arguments, input: input, in: directory ?? Golden.repositoryRoot())
    }
}

/// The executable `name` the package built beside the test bundle.
public func builtProduct(_ name: String) -> URL {
    let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let beside = products.appendingPathComponent(name)
    // `swift test` on Linux runs the bundle from `.build/<config>/`; under Xcode it sits one level deeper.
    return FileManager.default.fileExists(atPath: beside.path) ? beside : products.deletingLastPathComponent().appendingPathComponent(name)
}

/// A child process run to its end without blocking a thread while it runs.
public enum ChildProcess {
    /// Runs `executable` with `arguments` in `directory`; `input` is written to its standard input.
    public static func run(
        _ executable: URL, _ arguments: [String], input: Data? = nil, in directory: URL? = nil, environment: [String: String] = [:]
    ) async throws -> WireTool.Run {
        let process = try RunningProcess(executable, arguments, input: input, in: directory, environment: environment)
        let status = try await process.wait()
        return WireTool.Run(status: status, stdout: process.standardOutput, stderr: process.standardError)
    }
}

/// A child process whose output is collected as it comes; every wait is without blocking a thread
/// (a blocked thread of the small cooperative pool stalls every test running beside it).
public final class RunningProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    /// The exit status, once the process ended (and its pipes were drained).
    private var exitStatus: Int32?
    private var timedOut = false
    /// Signalled after each write the process makes, and once it ended.
    private let changed = ChangeSignal()

    /// Starts `executable` with `arguments` in `directory`, with `environment` added to this
    /// process's; `input`, if any, is written to its standard input, which is then closed.
    public init(
        _ executable: URL, _ arguments: [String], input: Data? = nil, in directory: URL? = nil, environment: [String: String] = [:]
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = Pipe()
        let inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        if input != nil { process.standardInput = inPipe }
        // A handler reads and appends under the lock, and the termination handler reads the rest
        // under it too, so a chunk a handler had begun on cannot land after the rest (which
        // reordered the output of a large write now and then).
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(from: handle, error: false) }
        err.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.append(from: handle, error: true) }
        process.terminationHandler = { [weak self] process in
            guard let self else { return }
            out.fileHandleForReading.readabilityHandler = nil
            err.fileHandleForReading.readabilityHandler = nil
            // What is still in the pipes once the process exited, before anyone hears of the exit.
            self.lock.withLock {
                self.output.append(out.fileHandleForReading.readDataToEndOfFile())
                self.errors.append(err.fileHandleForReading.readDataToEndOfFile())
                self.exitStatus = process.terminationStatus
            }
            self.changed.signal()
        }
        try process.run()
        if let input {
            inPipe.fileHandleForWriting.write(input)
            try inPipe.fileHandleForWriting.close()
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    private func append(from handle: FileHandle, error: Bool) {
        lock.withLock {
            // After the exit the rest was read already; a late call finds the pipe empty.
            guard exitStatus == nil else { return }
            let data = handle.availableData
            if error { errors.append(data) } else { output.append(data) }
        }
        changed.signal()
    }

    /// Waits until `condition` holds for what the process wrote to standard output so far; woken
    /// by each write. Returns whether it held: `false` once the process ended without it, or after
    /// `timeout` in real time (a guard against a hung test, not a timing assertion).
    @discardableResult
    public func waitForOutput(timeout: Duration = .seconds(60), until condition: (String) -> Bool) async -> Bool {
        var held = false
        await changed.wait(timeout: timeout) {
            let (text, ended) = lock.withLock { (String(decoding: output, as: UTF8.self), exitStatus != nil) }
            held = condition(text)
            return held || ended
        }
        return held
    }

    /// What the process wrote to standard output and standard error so far.
    public var standardOutput: String { lock.withLock { String(decoding: output, as: UTF8.self) } }
    public var standardError: String { lock.withLock { String(decoding: errors, as: UTF8.self) } }

    public var isRunning: Bool { process.isRunning }

    /// Waits (woken by the exit, without blocking a thread) for the process to exit and returns
    /// its status; after `timeout`, a guard against a hung test, it is killed and the wait fails.
    @discardableResult
    public func wait(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let hasExited = { self.lock.withLock { self.exitStatus != nil } }
        if await changed.wait(timeout: timeout, until: hasExited) {
            let (status, timedOut) = lock.withLock { (exitStatus, self.timedOut) }
            if let status, !timedOut { return status }
        } else {
            try Task.checkCancellation()
            lock.withLock { timedOut = true }
            kill(process.processIdentifier, SIGKILL)
            await changed.wait(until: hasExited)
        }
        throw ChildProcessFailure("\(name) did not end within \(timeout); it was killed")
    }

    private var name: String { process.executableURL?.lastPathComponent ?? "the process" }

    /// Sends `signal` (SIGSTOP, SIGCONT, …) without waiting for anything.
    public func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Sends `signal` and waits for the process to end; returns its termination status.
    @discardableResult
    public func stop(with signal: Int32) async throws -> Int32 {
        kill(process.processIdentifier, signal)
        return try await wait()
    }
}

/// A child process that did not do what a test needs.
public struct ChildProcessFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
