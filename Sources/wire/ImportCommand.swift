import ArgumentParser
import Foundation
import WireImport
import WireSpec

extension AsyncAPIImporter.Perspective: ExpressibleByArgument {}

/// `wire import`: specs from protocol descriptions written in other languages.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Write a spec from a protocol described elsewhere.",
        subcommands: [ImportAsyncAPICommand.self]
    )
}

/// `wire import asyncapi DOC [-o SPEC]`.
struct ImportAsyncAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "asyncapi",
        abstract: "Write a spec from an AsyncAPI 3.0 document (YAML or JSON).",
        discussion: """
            Prints every diagnostic as file:line:col: severity: message, at the AsyncAPI document's lines. Writes the spec to \
            standard output, or to -o. Exits 1 when the document has something that cannot be imported faithfully (the spec \
            is still written, without it) and 2 when it cannot be read.
            """
    )

    @Argument(help: "The AsyncAPI 3.0 document.")
    var document: String

    @Option(name: .shortAndLong, help: "Where to write the spec (default: standard output).")
    var output: String?

    @Option(name: .long, help: "The property that tells frames apart, when the document does not make it clear.")
    var tagField: String?

    @Option(name: .long, help: "The protocol's machine name (default: made from the document's title).")
    var name: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The application the document describes: provider (receive = client frames) or client (send = client frames).",
            discussion: "Default: judged from the operations; a note says which was chosen and why.", valueName: "provider|client"))
    var describes: AsyncAPIImporter.Perspective?

    func run() throws {
        let result = AsyncAPIImporter.importDocument(atPath: document, options: .init(tagField: tagField, name: name, describes: describes))
        for diagnostic in result.diagnostics.sortedByLocation() { printError(diagnostic.description) }
        guard let spec = result.spec else { throw ExitCode(ExitStatus.usage) }
        // What the spec language itself refuses in the written spec, at the spec's lines.
        let written = output ?? "<imported spec>"
        let checked = SpecLoader.check(yaml: spec, file: written)
        for diagnostic in checked.diagnostics { printError(diagnostic.description) }
        if let output {
            do {
                try Data(spec.utf8).write(to: URL(fileURLWithPath: output))
            } catch {
                printError("\(output): error: cannot write the spec: \(error.localizedDescription)")
                throw ExitCode(ExitStatus.usage)
            }
        } else {
            FileHandle.standardOutput.write(Data(spec.utf8))
        }
        if result.diagnostics.containsErrors || checked.spec == nil { throw ExitCode(ExitStatus.failure) }
    }
}
