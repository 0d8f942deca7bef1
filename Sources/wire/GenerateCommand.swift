import ArgumentParser
import Foundation
import WireCodegen
import WireSpec

/// `wire generate SPEC --output DIR`: writes the Swift SDK of a spec.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate Swift wire types, frame codec, dispatcher, validation and tables from a spec.",
        discussion: "Writes a fixed set of files and rewrites a file only when its bytes change, so builds stay incremental."
    )

    @OptionGroup var spec: SpecInput

    @Option(name: .output, help: "The directory to write the generated files into (created if missing).")
    var output: String

    @Option(name: .long, help: "The access level of generated declarations: public, package or internal.")
    var accessLevel: AccessLevel = .public

    @Option(name: .long, help: "The name of the enum holding the protocol's tables (default: the protocol's name in UpperCamelCase).")
    var namespace: String?

    func run() throws {
        let result = SwiftGenerationJob.run(
            specPath: spec.path, outputDirectory: output, options: SwiftGeneratorOptions(accessLevel: accessLevel, namespace: namespace))
        for diagnostic in result.diagnostics { printError(diagnostic.description) }
        switch result.outcome {
        case .generated: break
        case .invalidSpec: throw ExitCode(ExitStatus.failure)
        case .unusable(let message):
            printError(message)
            throw ExitCode(ExitStatus.usage)
        }
    }
}

extension AccessLevel: ExpressibleByArgument {}

/// Loads a spec for a command that needs a valid one: prints its diagnostics and exits 1 on errors, 2 when unreadable.
func loadCheckedSpec(_ path: String) throws -> ProtocolSpec {
    guard let spec = try checkSpec(path).spec else { throw ExitCode(ExitStatus.failure) }
    return spec
}

/// Reads and checks a spec and prints its diagnostics. With `gitObjects`, an argument that names
/// no file but has a colon is read as `GIT-REF:PATH` with `git show`. A spec that cannot be read
/// is printed as an error and ends the command with exit status 2.
func checkSpec(_ argument: String, gitObjects: Bool = false) throws -> SpecCheckResult {
    let result: SpecCheckResult
    do {
        if gitObjects, !FileManager.default.fileExists(atPath: argument), argument.contains(":") {
            result = SpecLoader.check(yaml: try gitShow(argument), file: argument)
        } else {
            result = try SpecLoader.check(contentsOf: argument)
        }
    } catch {
        printError("error: \(error)")
        throw ExitCode(ExitStatus.usage)
    }
    for diagnostic in result.diagnostics { printError(diagnostic.description) }
    return result
}
