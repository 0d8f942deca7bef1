import ArgumentParser

/// The `wire` command-line tool: a thin layer over WireSpec and WireCodegen.
struct WireCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wire",
        abstract: "Check, generate and publish protocols described by a wire spec.",
        discussion: """
            Exit status: 0 on success, 1 when the input has errors, 2 for usage or I/O errors.
            """,
        subcommands: [
            LintCommand.self, GenerateCommand.self, ValidateCommand.self, SchemaCommand.self, DocsCommand.self, DiffCommand.self, ProbeCommand.self,
            ImportCommand.self,
        ]
    )
}

/// The tool's exit statuses.
enum ExitStatus {
    /// Success; warnings allowed.
    static let success: Int32 = 0
    /// The input has errors.
    static let failure: Int32 = 1
    /// Bad usage, or a file that cannot be read or written.
    static let usage: Int32 = 2
}
