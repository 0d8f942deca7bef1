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
///
/// Each pipe is read to its end by a thread of its own with plain blocking reads. It used a
/// `FileHandle.readabilityHandler` before, which on Linux is a dispatch read source, and a CI run
/// crashed in dispatch's event loop (signal 11 in `_dispatch_event_loop_drain`), most likely from
/// a handle's descriptor closed, and reused by a test beside it, while the loop still watched it.
public final class RunningProcess: @unchecked Sendable {
    private let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    /// The status the termination handler saw, before the pipes were drained.
    private var terminationStatus: Int32?
    /// The pipes not yet read to their end.
    private var openPipes = 2
    /// The exit status, once the process ended and both its pipes were read to their end.
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
        process.terminationHandler = { [weak self] process in
            self?.finish { $0.terminationStatus = process.terminationStatus }
        }
        try process.run()
        Self.collect(out, into: self, error: false)
        Self.collect(err, into: self, error: true)
        if let input {
            inPipe.fileHandleForWriting.write(input)
            try inPipe.fileHandleForWriting.close()
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Reads `pipe` to its end on a thread of its own. The thread keeps the pipe, not the
    /// process object: a process dropped while running is killed, and its pipe then ends.
    private static func collect(_ pipe: Pipe, into owner: RunningProcess, error: Bool) {
        let reader = Thread { [weak owner] in
            let descriptor = pipe.fileHandleForReading.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                // Whatever the pipe holds, as soon as it holds anything (`FileHandle.read(upToCount:)`
                // would wait for the whole count); the end, or an error, ends the loop.
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                let chunk = Data(buffer[0..<count])
                guard let owner else { continue }
                owner.lock.withLock {
                    if error { owner.errors.append(chunk) } else { owner.output.append(chunk) }
                }
                owner.changed.signal()
            }
            owner?.finish { $0.openPipes -= 1 }
        }
        reader.name = error ? "child stderr" : "child stdout"
        reader.start()
    }

    /// Applies `change` under the lock; once the process has exited and both pipes have ended,
    /// the exit is recorded and waiters are woken.
    private func finish(_ change: (RunningProcess) -> Void) {
        lock.withLock {
            change(self)
            if openPipes == 0, let terminationStatus { exitStatus = terminationStatus }
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
