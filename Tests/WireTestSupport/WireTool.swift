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
    public static func run(_ executable: URL, _ arguments: [String], input: Data? = nil, in directory: URL? = nil) async throws -> WireTool.Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = Pipe()
        let inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        if input != nil { process.standardInput = inPipe }
        let collected = OutputBuffers()
        out.fileHandleForReading.readabilityHandler = { collected.append($0.availableData, error: false) }
        err.fileHandleForReading.readabilityHandler = { collected.append($0.availableData, error: true) }
        let (exits, exitSink) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exitSink.yield($0.terminationStatus) }
        try process.run()
        if let input {
            inPipe.fileHandleForWriting.write(input)
            try inPipe.fileHandleForWriting.close()
        }
        var status: Int32 = -1
        for await code in exits {
            status = code
            break
        }
        // What is still in the pipes once the process exited.
        out.fileHandleForReading.readabilityHandler = nil
        err.fileHandleForReading.readabilityHandler = nil
        collected.append(out.fileHandleForReading.readDataToEndOfFile(), error: false)
        collected.append(err.fileHandleForReading.readDataToEndOfFile(), error: true)
        let (stdout, stderr) = collected.contents
        return WireTool.Run(status: status, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}

/// Standard output and error of a child, collected as they come.
private final class OutputBuffers: @unchecked Sendable {
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()

    func append(_ data: Data, error: Bool) {
        lock.withLock {
            if error { errors.append(data) } else { output.append(data) }
        }
    }

    var contents: (Data, Data) { lock.withLock { (output, errors) } }
}
