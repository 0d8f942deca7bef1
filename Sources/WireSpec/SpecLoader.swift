import Foundation

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
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "\(error.localizedDescription)" : "no such file"
            throw SpecFileError(path: path, reason: reason)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SpecFileError(path: path, reason: "the file is not valid UTF-8")
        }
        return check(yaml: text, file: path)
    }
}
