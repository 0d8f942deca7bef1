/// A position in a spec file: the file name as given to the loader, and a 1-based line and column.
///
/// Columns count Unicode scalars, as libyaml does.
public struct SourceLocation: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The file path as it was passed to the loader (relative paths stay relative).
    public var file: String
    /// The 1-based line number.
    public var line: Int
    /// The 1-based column number.
    public var column: Int

    /// Creates a location.
    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:col`, the form compilers and editors understand.
    public var description: String { "\(file):\(line):\(column)" }
}
