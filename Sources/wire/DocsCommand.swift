import ArgumentParser
import Foundation
import WireCodegen
import WireDiff
@_spi(Generated) import WireRuntime
import WireSpec
import WireValidator

/// `wire docs SPEC --format markdown|html --output DIR`: publishes the protocol reference.
struct DocsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "docs",
        abstract: "Publish the protocol reference of a spec as Markdown or as one self-contained HTML page.",
        discussion: """
            With --examples DIR (a golden-frame folder with <direction>/valid/<tag>*.json files), every message's \
            example is a golden frame; otherwise the spec's own examples are used. Writes <name>.md or <name>.html \
            into --output, rewriting a file only when its bytes change.
            """
    )

    @OptionGroup var spec: SpecInput

    @Option(name: .long, help: "markdown or html.")
    var format: DocsGenerator.Format

    @Option(name: .output, help: "The directory to write into.")
    var output: String

    @Option(name: .long, help: "A folder of golden frames to take examples from.")
    var examples: String?

    @Option(name: .long, help: "End the reference with what changed since this spec: a file or GIT-REF:PATH, as for `wire diff`.")
    var since: String?

    func run() throws {
        let model = try loadCheckedSpec(spec.path)
        var frames: [MessageRef: String] = [:]
        if let examples {
            do {
                frames = try Self.goldenExamples(in: examples, spec: model)
            } catch {
                printError("error: \(error)")
                throw ExitCode(ExitStatus.usage)
            }
        }
        let changelog = try since.map { since in
            let changes = SpecDiff.changes(from: try loadComparedSpec(since), to: model)
            let notes = ChangeReport.migrationNotes(changes)
            return DocsGenerator.Changelog(
                since: since, summary: ChangeReport.summary(changes), versionFinding: notes.versionFinding,
                changes: [
                    .oldClients: notes.breaksOldClients, .oldServers: notes.breaksOldServers, .eitherMayBreak: notes.mayBreak,
                    .neither: notes.compatible,
                ], descriptionsChanged: notes.descriptionsChanged)
        }
        let file = GeneratedFile(
            name: DocsGenerator.fileName(for: model, format: format),
            contents: DocsGenerator.document(for: model, format: format, examples: frames, changelog: changelog))
        do {
            try GeneratedFileWriter.writeChanged([file], to: output)
        } catch {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.usage)
        }
    }

    struct ExampleError: Error, CustomStringConvertible {
        var description: String
    }

    /// The first valid golden frame of each message: `<tag>.json`, else the first `<tag>.<case>.json`.
    static func goldenExamples(in directory: String, spec: ProtocolSpec) throws -> [MessageRef: String] {
        var result: [MessageRef: String] = [:]
        for message in spec.messages {
            let folder = URL(fileURLWithPath: directory).appendingPathComponent(message.direction.rawValue).appendingPathComponent("valid")
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
                throw ExampleError(description: "no golden frames in \(folder.path)")
            }
            let candidates = names.filter { $0 == "\(message.tag).json" || ($0.hasPrefix("\(message.tag).") && $0.hasSuffix(".json")) }.sorted {
                lhs, rhs in
                (lhs == "\(message.tag).json" ? "" : lhs) < (rhs == "\(message.tag).json" ? "" : rhs)
            }
            guard let name = candidates.first, let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) else {
                continue
            }
            let value: JSONValue
            do {
                value = try JSONParser.parse(data)
            } catch {
                throw ExampleError(description: "golden frame \(folder.appendingPathComponent(name).path) is not JSON: \(error)")
            }
            result[MessageRef(direction: message.direction, tag: message.tag)] = DocsGenerator.exampleText(SpecValue(value), tagField: spec.tagField)
        }
        return result
    }
}

extension DocsGenerator.Format: ExpressibleByArgument {}
