import ArgumentParser
import Testing

@testable import wire

/// `wire validate`'s plain arguments, read without swift-argument-parser, against what
/// swift-argument-parser makes of the same arguments.
@Suite struct ValidateArgumentsTests {
    /// A command with every stored property written out, the property wrappers' state included:
    /// a property the plain reading forgot to set prints differently from a parsed one.
    private static func described(_ command: any ParsableCommand) -> String { String(reflecting: command) }

    /// Forms that must take the plain reading: the ones the README, docs/wire.md and the
    /// benchmarks use.
    static let plain: [[String]] = [
        ["validate", "capture.jsonl"],
        ["validate", "-"],
        ["validate", "--spec", "Spec/clawline.yaml", "capture.jsonl"],
        ["validate", "capture.jsonl", "--spec", "Spec/clawline.yaml"],
        ["validate", "--format", "json", "a.jsonl", "b.har"],
        ["validate", "--format", "text", "--direction", "client", "-"],
        ["validate", "--direction", "server", "frames.jsonl"],
        ["validate", "--spec", "other.yaml", "--html", "report.html", "--format", "json", "a.jsonl", "-", "b.jsonl"],
        ["validate", "help"],
    ]

    @Test(arguments: plain)
    func plainFormsAreReadAsSwiftArgumentParserReadsThem(_ arguments: [String]) throws {
        let plainly = try #require(ValidateCommand.parsedPlainly(arguments), "\(arguments) should take the plain reading")
        let parsed = try WireCommand.parseAsRoot(arguments)
        #expect(parsed is ValidateCommand)
        #expect(Self.described(plainly) == Self.described(parsed))
    }

    /// Forms the plain reading leaves to swift-argument-parser: its help, its errors, and the
    /// spellings only it knows.
    static let left: [[String]] = [
        [],
        ["lint", "Spec/clawline.yaml"],
        ["validate"],
        ["validate", "--help"],
        ["validate", "-h"],
        ["validate", "--spec=Spec/clawline.yaml", "capture.jsonl"],
        ["validate", "--spec", "a.yaml", "--spec", "b.yaml", "capture.jsonl"],
        ["validate", "--format", "xml", "capture.jsonl"],
        ["validate", "--direction", "sideways", "capture.jsonl"],
        ["validate", "--spec"],
        ["validate", "--spec", "--format", "json", "capture.jsonl"],
        ["validate", "--", "capture.jsonl"],
        ["validate", "--unknown", "x", "capture.jsonl"],
        ["validate", "-x", "capture.jsonl"],
        ["validate", ""],
        ["validate", "--spec", "", "capture.jsonl"],
        ["validate", "--generate-completion-script", "bash"],
        ["validate", "--spec", "Spec/clawline.yaml"],
    ]

    @Test(arguments: left)
    func everythingElseIsLeftToSwiftArgumentParser(_ arguments: [String]) {
        #expect(ValidateCommand.parsedPlainly(arguments) == nil)
    }

    /// A form the plain reading declines still parses (or fails) as before: the fallback is
    /// swift-argument-parser itself, so a valid one among them gives the same command.
    @Test func aDeclinedFormThatIsValidStillParses() throws {
        let parsed = try WireCommand.parseAsRoot(["validate", "--spec=Spec/clawline.yaml", "capture.jsonl"])
        let command = try #require(parsed as? ValidateCommand)
        #expect(command.spec == "Spec/clawline.yaml")
        #expect(command.files == ["capture.jsonl"])
        #expect(throws: (any Error).self) { try WireCommand.parseAsRoot(["validate", "--format", "xml", "capture.jsonl"]) }
    }
}
