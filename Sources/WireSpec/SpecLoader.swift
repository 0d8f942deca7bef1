import Foundation
import WireRuntime

/// The outcome of loading and checking a spec: the model when it is valid, and every diagnostic.
public struct SpecCheckResult: Sendable {
    /// The checked model, or `nil` when there is at least one error.
    public var spec: ProtocolSpec?
    /// All diagnostics of the file, ordered by position.
    public var diagnostics: [Diagnostic]

    /// The model, or an error carrying every diagnostic.
    public func get() throws(InvalidSpecError) -> ProtocolSpec {
        guard let spec else { throw InvalidSpecError(diagnostics: diagnostics) }
        return spec
    }
}

/// A spec with at least one error.
public struct InvalidSpecError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}

/// A spec file that could not be read.
public struct SpecFileError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "cannot read spec '\(path)': \(reason)" }
}

/// Loads a YAML spec, checks it completely, and returns an immutable model.
public enum SpecLoader {
    /// Loads and checks YAML text. `file` is the name diagnostics carry.
    public static func check(yaml: String, file: String) -> SpecCheckResult {
        let root: YAMLNode
        switch YAMLParser.parse(yaml, file: file) {
        case .failure(let diagnostic):
            return SpecCheckResult(spec: nil, diagnostics: [diagnostic])
        case .success(nil):
            let diagnostic = Diagnostic(
                .error, "the spec is empty; it needs at least 'protocol', 'transport', 'validation', 'errors' and 'messages'",
                at: SourceLocation(file: file, line: 1, column: 1))
            return SpecCheckResult(spec: nil, diagnostics: [diagnostic])
        case .success(let node?):
            root = node
        }
        let reader = SpecReader(file: file)
        let model = reader.document(root)
        var diagnostics = reader.diagnostics
        if let model {
            var checker = SpecChecker(spec: model)
            diagnostics += checker.check()
        }
        let sorted = diagnostics.sortedByLocation()
        return SpecCheckResult(spec: sorted.containsErrors ? nil : model, diagnostics: sorted)
    }

    /// Reads a spec file and checks it. Diagnostics carry `path` exactly as given.
    public static func check(contentsOf path: String) throws(SpecFileError) -> SpecCheckResult {
        let bytes = try SpecFile.bytes(atPath: path)
        var text = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces what is not UTF-8; a file that is UTF-8 decodes to its own bytes.
        // Compared as two buffers: walking the text's UTF-8 view byte by byte cost about 50
        // instructions a byte, 2 million for this repository's spec, in every process that loads one.
        let decodesToItself = text.withUTF8 { decoded in
            bytes.withUnsafeBufferPointer { original in
                decoded.count == original.count && (original.isEmpty || memcmp(decoded.baseAddress!, original.baseAddress!, original.count) == 0)
            }
        }
        guard decodesToItself else {
            throw SpecFileError(path: path, reason: "the file is not valid UTF-8")
        }
        return check(yaml: text, file: path)
    }
}

/// A spec file's bytes, read with the system's calls: Foundation's file reading (a URL, a file
/// manager, `Data`) cost about 0.6 ms of every process that loads a spec, mostly first uses.
private enum SpecFile {
    static func bytes(atPath path: String) throws(SpecFileError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, errno) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = 64 << 10
        // Read until the end, in chunks as large as what was read so far.
        while true {
            let start = bytes.count
            bytes.append(contentsOf: repeatElement(0, count: chunk))
            let (count, failed) = bytes.withUnsafeMutableBytes { readRetryingInterrupts(descriptor, into: $0.baseAddress! + start, count: chunk) }
            bytes.removeLast(chunk - count)
            if failed != 0 { throw failure(path, failed) }
            if count == 0 { return bytes }
            chunk = max(chunk, bytes.count)
        }
    }

    private static func failure(_ path: String, _ code: Int32) -> SpecFileError {
        SpecFileError(path: path, reason: code == ENOENT ? "no such file" : String(cString: strerror(code)))
    }
}
