import ArgumentParser
import ClawlineClient
import Foundation

struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print this device's conversation.")

    @Flag(help: "Connect first and fetch what the server has that this device has not seen.") var sync = false
    @OptionGroup var state: StateOptions

    func run() async throws {
        let device = try state.load()
        let store = device.conversationStore
        if sync {
            let credentials = try device.requireCredentials()
            let chat = device.chatService(credentials)
            let notices = chat.notices
            try await device.connect(chat, credentials)
            for await notice in notices where notice == .replayFinished { break }
            await chat.disconnect()
        }
        let conversation = try await store.load()
        let formatter = ISO8601DateFormatter()
        for message in conversation.messages {
            let who = message.role == .assistant ? "assistant" : message.deviceId == device.identity.deviceId ? "you" : "user"
            let status = message.status == .delivered ? "" : " [\(message.status.rawValue)]"
            print("\(formatter.string(from: message.timestamp))  \(who): \(message.content)\(status)")
        }
        if !conversation.pending.isEmpty { print("(\(conversation.pending.count) message(s) not yet acknowledged)") }
    }
}
