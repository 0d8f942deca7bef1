import ArgumentParser
import Foundation
import WireCodegen
import WireSpec

/// `wire schema SPEC --format json-schema|asyncapi`: exports a spec for other ecosystems.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Export a spec as JSON Schema 2020-12 (one schema per direction) or AsyncAPI 3.0.",
        discussion: """
            Without --output, prints one document: the AsyncAPI document, or the JSON Schema of --direction. \
            With --output DIR, writes <name>.client.schema.json and <name>.server.schema.json, or <name>.asyncapi.json, \
            rewriting a file only when its bytes change.
            """
    )

    enum Format: String, ExpressibleByArgument {
        case jsonSchema = "json-schema"
        case asyncapi
    }

    @Argument(help: "The spec file (YAML).")
    var spec: String

    @Option(name: .long, help: "json-schema or asyncapi.")
    var format: Format

    @Option(name: .long, help: "For json-schema printed to standard output: the direction (client or server).")
    var direction: Direction?

    @Option(name: .long, help: "A directory to write the documents into.")
    var output: String?

    func run() throws {
        let model = try loadCheckedSpec(spec)
        var files: [GeneratedFile] = []
        switch format {
        case .asyncapi:
            files = [GeneratedFile(name: "\(model.name).asyncapi.json", contents: AsyncAPIGenerator.document(for: model))]
        case .jsonSchema:
            let directions = output == nil ? [direction ?? .client] : (direction.map { [$0] } ?? Direction.allCases)
            if output == nil, direction == nil {
                printError("error: json-schema to standard output needs --direction client or --direction server (or --output DIR for both)")
                throw ExitCode(ExitStatus.usage)
            }
            files = directions.map { direction in
                GeneratedFile(name: "\(model.name).\(direction.rawValue).schema.json", contents: JSONSchemaGenerator.schema(for: model, direction: direction, id: "\(model.name).\(direction.rawValue).schema.json"))
            }
        }
        guard let output else {
            FileHandle.standardOutput.write(Data(files[0].contents.utf8))
            return
        }
        do {
            try GeneratedFileWriter.writeChanged(files, to: output)
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.usage)
        }
    }
}
