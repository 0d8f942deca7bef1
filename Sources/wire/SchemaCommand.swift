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
            Without --output, prints one document: the AsyncAPI document, or the JSON Schema of --direction \
            (of both directions without it). With --output DIR, writes <name>.client.schema.json and \
            <name>.server.schema.json (or the one of --direction), or <name>.asyncapi.json, rewriting a file only \
            when its bytes change.
            """
    )

    enum Format: String, ExpressibleByArgument {
        case jsonSchema = "json-schema"
        case asyncapi
    }

    @OptionGroup var spec: SpecInput

    @Option(name: .long, help: "json-schema or asyncapi.")
    var format: Format

    @Option(name: .long, help: "For json-schema: only the frames of this direction (client or server).")
    var direction: Direction?

    @Option(name: .output, help: "A directory to write the documents into.")
    var output: String?

    func run() throws {
        let model = try loadCheckedSpec(spec.path)
        var files: [GeneratedFile] = []
        switch format {
        case .asyncapi:
            files = [GeneratedFile(name: "\(model.name).asyncapi.json", contents: AsyncAPIGenerator.document(for: model))]
        case .jsonSchema where output == nil && direction == nil:
            files = [
                GeneratedFile(name: "\(model.name).schema.json", contents: JSONSchemaGenerator.schema(for: model, id: "\(model.name).schema.json"))
            ]
        case .jsonSchema:
            let directions = direction.map { [$0] } ?? Direction.allCases
            files = directions.map { direction in
                GeneratedFile(
                    name: "\(model.name).\(direction.rawValue).schema.json",
                    contents: JSONSchemaGenerator.schema(for: model, direction: direction, id: "\(model.name).\(direction.rawValue).schema.json"))
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
