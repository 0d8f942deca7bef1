import ArgumentParser
import Foundation
import WireCodegen
import WireSpec

/// `wire lint SPEC`: prints every diagnostic of a spec.
struct LintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a spec and print its diagnostics as file:line:col: severity: message.",
        discussion: """
            Prints nothing and exits 0 when the spec is clean; exits 1 when it has errors and 2 when it cannot be read. \
            It also reports what would keep `wire generate` from generating Swift (names that collide), so what lint \
            accepts generates.
            """
    )

    enum DumpFormat: String, ExpressibleByArgument {
        case json
    }

    @Option(name: .long, help: "Also print the checked model in this format (json) on standard output.")
    var dump: DumpFormat?

    @OptionGroup var spec: SpecInput

    @Option(name: .long, help: "The namespace `wire generate` will use, when not the protocol's name in UpperCamelCase.")
    var namespace: String?

    func run() throws {
        let model = try loadCheckedSpec(spec.path)
        let problems = SwiftGenerator.nameProblems(model, options: SwiftGeneratorOptions(namespace: namespace))
        for problem in problems { printError(problem.description) }
        if !problems.isEmpty { throw ExitCode(ExitStatus.failure) }
        if dump == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(model)
            FileHandle.standardOutput.write(data + Data("\n".utf8))
        }
    }
}

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
