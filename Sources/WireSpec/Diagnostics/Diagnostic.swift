/// One problem found while loading or checking a spec.
public struct Diagnostic: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// How serious a diagnostic is.
    public enum Severity: String, Sendable, Hashable, Codable {
        /// The spec is invalid; no model is produced.
        case error
        /// The spec is usable but probably not what its author meant.
        case warning
        /// Extra context attached to an earlier diagnostic (for example where a duplicate was first defined).
        case note
    }

    /// How serious the problem is.
    public var severity: Severity
    /// What is wrong, in one sentence a person can act on.
    public var message: String
    /// Where the problem is.
    public var location: SourceLocation

    /// Creates a diagnostic.
    public init(_ severity: Severity, _ message: String, at location: SourceLocation) {
        self.severity = severity
        self.message = message
        self.location = location
    }

    /// `file:line:col: severity: message`, the format compilers, editors and SwiftPM understand.
    public var description: String { "\(location): \(severity.rawValue): \(message)" }
}

extension Array where Element == Diagnostic {
    /// Whether any diagnostic is an error.
    public var containsErrors: Bool { contains { $0.severity == .error } }

    /// The diagnostics ordered by file, line and column; the order of equal positions is kept.
    public func sortedByLocation() -> [Diagnostic] {
        enumerated().sorted { lhs, rhs in
            let l = lhs.element.location
            let r = rhs.element.location
            if l.file != r.file { return l.file < r.file }
            if l.line != r.line { return l.line < r.line }
            if l.column != r.column { return l.column < r.column }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }
}
