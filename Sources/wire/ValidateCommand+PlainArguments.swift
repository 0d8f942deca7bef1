import ArgumentParser
import WireSpec

extension ValidateCommand {
    /// `wire validate`'s arguments in their plain forms, read without swift-argument-parser; `nil`
    /// for anything else, which the caller hands to ``WireCommand/parseAsRoot(_:)``.
    ///
    /// swift-argument-parser builds its tables of every command by reflection and, on every run,
    /// parses the arguments a third time to look for a completion-script request. That was 13.6
    /// million instructions, nearly a third of `wire validate`'s start, and on a small capture the
    /// start is most of the run. The plain forms are `validate`, then in any order: capture files
    /// (or `-`), and at most one each of `--spec PATH`, `--format text|json`,
    /// `--direction client|server` and `--html PATH`. Anything else (help, `--name=value`, a
    /// repeated option, `--`, a value that starts with `-`, an unknown option, no capture) goes
    /// to swift-argument-parser, so its messages and its rules stay the only ones people see.
    /// `ValidateArgumentsTests` holds this to what swift-argument-parser makes of the same
    /// arguments.
    ///
    /// - Parameter arguments: The command line without the program's name.
    static func parsedPlainly(_ arguments: [String]) -> ValidateCommand? {
        guard arguments.first == ValidateCommand.configuration.commandName else { return nil }
        var spec: String?
        var format: OutputFormat?
        var direction: Direction?
        var html: String?
        var files: [String] = []
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("-"), argument != "-" else {
                guard !argument.isEmpty else { return nil }
                files.append(argument)
                continue
            }
            guard let value = rest.popFirst(), !value.isEmpty, !value.hasPrefix("-") else { return nil }
            switch argument {
            case "--spec" where spec == nil: spec = value
            case "--html" where html == nil: html = value
            case "--format" where format == nil:
                guard let known = OutputFormat(rawValue: value) else { return nil }
                format = known
            case "--direction" where direction == nil:
                guard let known = Direction(rawValue: value) else { return nil }
                direction = known
            default: return nil
            }
        }
        var command = ValidateCommand()
        command.spec = spec
        command.format = format ?? .text
        command.direction = direction
        command.html = html
        command.files = files
        // The command's own checks (at least one capture): a command they refuse is left to
        // swift-argument-parser, which reports it.
        guard (try? command.validate()) != nil else { return nil }
        return command
    }
}
