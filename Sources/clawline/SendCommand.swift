import ArgumentParser
import ClawlineClient
import Foundation

struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Send one message and print the answer.")

    @Argument(help: "The message.") var text: String
    @Option(help: "Attach a file (uploaded first).") var file: String?
    @Option(help: "The attached file's MIME type.") var mimeType = "application/octet-stream"
    @Flag(help: "Return once the server acknowledged the message, without waiting for the answer.") var noWait = false
    @OptionGroup var state: StateOptions

    func run() async throws {
        let device = try state.load()
        let credentials = try device.requireCredentials()
        let chat = device.chatService(credentials)
        let messages = chat.incomingMessages
        try await device.connect(chat, credentials)
        var attachments: [OutgoingAttachment] = []
        if let file {
            let url = URL(fileURLWithPath: file)
            guard let data = FileManager.default.contents(atPath: url.path) else { throw ClientFailure("cannot read \(file)") }
            attachments.append(.file(data, mimeType: mimeType, fileName: url.lastPathComponent))
        }
        let sent: ChatMessage
        do {
            sent = try await chat.send(content: text, attachments: attachments)
        } catch {
            throw ClientFailure(error)
        }
        var printer = TranscriptPrinter(deviceId: device.identity.deviceId)
        var delivered = false
        for await message in messages {
            if message.clientId == sent.id {
                if message.status == .failed { throw ClientFailure("not delivered: \(message.failure ?? "failed")") }
                if message.status == .delivered { delivered = true }
                if delivered && noWait { break }
                continue
            }
            guard delivered, message.role == .assistant else { continue }
            write(printer.render(message))
            if message.status == .delivered { break }
        }
        await chat.disconnect()
    }
}
