import ArgumentParser
import ClawlineClient
import Foundation

/// `clawline`: the reference Clawline client in a terminal, and the end-to-end demo.
@main
struct ClawlineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clawline",
        abstract: "The reference Clawline client: pair, chat, approve devices, run the end-to-end demo, and check a provider's conformance.",
        subcommands: [Demo.self, Pair.self, Chat.self, Send.self, Approvals.self, History.self, Conformance.self])
}

/// A client error as ArgumentParser shows it: one line, what to do next.
struct ClientFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
    init(_ error: any Error) { description = (error as? ClawlineClientError)?.description ?? "\(error)" }
}
