import Foundation

/// Runs the built `wire` executable from the repository root, as a user would.
public enum WireTool {
    public struct Run: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// The `wire` binary built beside the test bundle.
    public static var executable: URL {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let beside = products.appendingPathComponent("wire")
        // `swift test` on Linux runs the bundle from `.build/<config>/`; under Xcode it sits one level deeper.
        return FileManager.default.fileExists(atPath: beside.path) ? beside : products.deletingLastPathComponent().appendingPathComponent("wire")
    }

    /// Runs `wire` with arguments and optional standard input, in the repository root.
    public static func run(_ arguments: [String], input: Data? = nil, in directory: URL? = nil) throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? Golden.repositoryRoot()
        let out = Pipe()
        let err = Pipe()
        let inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        if input != nil { process.standardInput = inPipe }
        try process.run()
        if let input {
            inPipe.fileHandleForWriting.write(input)
            try inPipe.fileHandleForWriting.close()
        }
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}
