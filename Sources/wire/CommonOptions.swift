import ArgumentParser

/// The spec a command reads: positional (`wire lint SPEC`) or `--spec SPEC`, as `wire validate` takes it.
struct SpecInput: ParsableArguments {
    @Argument(help: ArgumentHelp("The spec file (YAML); or give it with --spec.", valueName: "spec"))
    var positional: String?

    @Option(name: .customLong("spec"), help: "The spec file (YAML), instead of the positional argument.")
    var option: String?

    mutating func validate() throws {
        switch (positional, option) {
        case (nil, nil): throw ValidationError("give the spec file, as an argument or with --spec")
        case (let first?, let second?) where first != second:
            throw ValidationError("two specs given ('\(first)' and --spec '\(second)'); give one")
        default: break
        }
    }

    /// The spec's path.
    var path: String { positional ?? option ?? "" }
}

extension NameSpecification {
    /// `--output DIR`, `-o DIR`; `--output-directory` is accepted too (its former spelling for `generate`).
    static var output: NameSpecification { [.customLong("output"), .customShort("o"), .customLong("output-directory")] }
}
