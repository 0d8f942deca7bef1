import ArgumentParser
import Foundation

// Parse by hand so usage errors exit with status 2 (ArgumentParser's default is 64).
do {
    // `wire validate`'s plain forms skip swift-argument-parser's start; everything else is its
    // (ValidateCommand+PlainArguments.swift).
    var command: any ParsableCommand = try ValidateCommand.parsedPlainly(Array(CommandLine.arguments.dropFirst())) ?? WireCommand.parseAsRoot()
    if let probe = command as? ProbeCommand {
        // The one asynchronous command: it talks to a live provider.
        try await probe.probe()
    } else {
        try command.run()
    }
    exit(ExitStatus.success)
} catch let exit as ExitCode {
    Foundation.exit(exit.rawValue)
} catch {
    let code = WireCommand.exitCode(for: error)
    if code == .success {
        print(WireCommand.fullMessage(for: error))
        exit(ExitStatus.success)
    }
    FileHandle.standardError.write(Data((WireCommand.fullMessage(for: error) + "\n").utf8))
    exit(ExitStatus.usage)
}
