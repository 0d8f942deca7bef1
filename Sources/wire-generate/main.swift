// `wire-generate SPEC --output DIR [--access-level LEVEL] [--namespace NAME]`
//
// The build-tool plugin's tool: `wire generate` alone, linking only the spec reader and the
// generator. `wire` links every command, and with the trait Server its `probe` brings SwiftNIO
// and swift-nio-ssl; a build compiles a plugin's tool and its dependencies a second time, for the
// host, so naming `wire` here compiled that stack (a BoringSSL among it) twice. Arguments are read
// by hand for the same reason. Exit status: 0 on success, 1 when the spec has errors, 2 for usage
// or I/O errors, as `wire generate`.
import Foundation
import WireCodegen

let usage = "usage: wire-generate SPEC --output DIR [--access-level public|package|internal] [--namespace NAME]"

/// Writes a line to standard error and ends the process with `status`.
func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

var specPath: String?
var output: String?
var options = SwiftGeneratorOptions()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    func value() -> String {
        guard let value = arguments.popFirst() else { fail("error: \(argument) needs a value\n\(usage)", status: 2) }
        return value
    }
    switch argument {
    case "--output", "-o": output = value()
    case "--namespace": options.namespace = value()
    case "--access-level":
        let level = value()
        guard let access = AccessLevel(rawValue: level) else {
            fail("error: --access-level must be public, package or internal, found '\(level)'", status: 2)
        }
        options.accessLevel = access
    case "--help", "-h":
        print(usage)
        exit(0)
    case _ where argument.hasPrefix("-"): fail("error: unknown option '\(argument)'\n\(usage)", status: 2)
    case _ where specPath == nil: specPath = argument
    default: fail("error: one spec only; '\(specPath ?? "")' and '\(argument)' given\n\(usage)", status: 2)
    }
}
guard let specPath, let output else { fail("error: give the spec and --output\n\(usage)", status: 2) }

let result = SwiftGenerationJob.run(specPath: specPath, outputDirectory: output, options: options)
for diagnostic in result.diagnostics { FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8)) }
switch result.outcome {
case .generated: exit(0)
case .invalidSpec: exit(1)
case .unusable(let message): fail(message, status: 2)
}
