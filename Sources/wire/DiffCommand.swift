import ArgumentParser
import Foundation
import WireCodegen
import WireDiff
import WireSpec

/// `wire diff OLD NEW`: what changed between two versions of a spec, and what it breaks.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "List what changed between two versions of a spec and whether old clients or old servers break.",
        discussion: """
            OLD and NEW are spec files or GIT-REF:PATH (read with `git show`), e.g. \
            `wire diff main:Spec/clawline.yaml Spec/clawline.yaml`. Exit status: 0 when nothing at or above --fail-on is \
            found, 1 when something is, 2 for usage or load errors (a spec with errors cannot be compared).
            """
    )

    enum FailOn: String, ExpressibleByArgument {
        case breaking, warning, none
    }

    @Argument(help: "The old spec: a file or GIT-REF:PATH.")
    var old: String

    @Argument(help: "The new spec: a file or GIT-REF:PATH.")
    var new: String

    @Option(name: .long, help: "text (one line per change, grouped), json (JSON Lines, then a summary) or markdown (a changelog section).")
    var format: ChangeReport.Format = .text

    @Option(name: .long, help: "The lowest severity that makes the exit status 1: breaking (default), warning or none.")
    var failOn: FailOn = .breaking

    func run() throws {
        let before = try loadComparedSpec(old)
        let after = try loadComparedSpec(new)
        let changes = SpecDiff.changes(from: before, to: after)
        FileHandle.standardOutput.write(Data(ChangeReport.render(changes, format: format, old: old, new: new).utf8))
        let threshold: ChangeSeverity? = failOn == .none ? nil : failOn == .breaking ? .breaking : .warning
        if let threshold, changes.contains(where: { $0.severity >= threshold }) { throw ExitCode(ExitStatus.failure) }
    }
}

extension ChangeReport.Format: ExpressibleByArgument {}

/// Loads a spec to compare: a file, or `GIT-REF:PATH` read with `git show` when no such file exists.
/// Any problem (unreadable, not in git, diagnostics) is a load error: printed, exit status 2.
func loadComparedSpec(_ argument: String) throws -> ProtocolSpec {
    let result = try checkSpec(argument, gitObjects: true)
    // What `wire lint` rejects cannot be compared: the spec's own errors, and names `wire generate` cannot use.
    let nameProblems = result.spec.map { SwiftGenerator.nameProblems($0) } ?? []
    for problem in nameProblems { printError(problem.description) }
    guard let spec = result.spec, nameProblems.isEmpty else {
        printError("error: '\(argument)' has errors; fix them before comparing")
        throw ExitCode(ExitStatus.usage)
    }
    return spec
}

/// The text of `REF:PATH` in the git repository of the current directory.
func gitShow(_ object: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["git", "show", object]
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let message = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        let text = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let reason = text.isEmpty ? "exit status \(process.terminationStatus)" : text
        throw GitError(description: "cannot read spec '\(object)': git show \(object) failed: \(reason)")
    }
    return String(decoding: data, as: UTF8.self)
}

private struct GitError: Error, CustomStringConvertible {
    var description: String
}
