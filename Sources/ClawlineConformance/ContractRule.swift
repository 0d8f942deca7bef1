import Foundation

/// A rule of the Clawline contract a conformance case checks: where the spec states it (a key
/// path in `Spec/clawline.yaml`, found there for its line) and what it says, in words.
///
/// Many of these rules are stated only in a description, because the spec language cannot state
/// rules across connections and devices, state the provider stores, or timers; the key path
/// names the description that states it.
public struct ContractRule: Sendable, Hashable {
    /// The YAML keys leading to the statement (`["session", "runs", "replay"]`).
    public var path: [String]
    /// What the contract says, in one sentence.
    public var statement: String

    /// A rule stated at `path`.
    public init(_ path: [String], _ statement: String) {
        self.path = path
        self.statement = statement
    }

    /// The key path, dotted (`session.runs.replay`).
    public var dottedPath: String { path.joined(separator: ".") }
}

/// Finds the line of a key path in a YAML file's text, by indentation: enough for the spec's
/// block mappings, with no YAML parser.
public struct SpecLineFinder: Sendable {
    /// The file, as reports name it.
    public let file: String
    private let lines: [Substring]

    /// A finder over `text`, the contents of `file`.
    public init(text: String, file: String) {
        self.file = file
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// A finder over the file at `path`, or `nil` when it cannot be read.
    public init?(contentsOf path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        self.init(text: text, file: path)
    }

    /// The 1-based line of `path`'s last key, or `nil` when the file does not have it.
    public func line(of path: [String]) -> Int? {
        var start = 0
        var parentIndent = -1
        var found: Int?
        for key in path {
            found = nil
            var index = start
            while index < lines.count {
                let line = lines[index]
                let trimmed = line.drop { $0 == " " }
                let indent = line.count - trimmed.count
                if !trimmed.isEmpty, !trimmed.hasPrefix("#") {
                    if indent <= parentIndent { break }
                    if trimmed.hasPrefix("\(key):") || trimmed.hasPrefix("- \(key):") {
                        found = index
                        parentIndent = indent
                        break
                    }
                }
                index += 1
            }
            guard let found else { return nil }
            start = found + 1
        }
        return found.map { $0 + 1 }
    }
}
