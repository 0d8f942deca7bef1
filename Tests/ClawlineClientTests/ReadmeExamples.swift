import ClawlineClient
import ClawlineProtocol
import Foundation
import Testing

// The client example of docs/client.md, compiled and run against the reference server.

func embedClient(serverURL: URL, stateDirectory: URL) async throws -> String? {
    let secrets = FileSecretStore(directory: stateDirectory)  // or KeychainSecretStore() on Apple platforms
    let device = try StoredDeviceIdentity(store: secrets)
    let connection = ConnectionService(serverURL: serverURL, deviceInfo: DeviceInfo(platform: "iOS", model: "iPhone 15"))
    try await connection.checkVersion()
    guard case .success(let paired) = try await connection.requestPairing(claimedName: "Kaywood", deviceId: device.deviceId) else {
        return nil
    }
    try CredentialStore(store: secrets).save(paired)

    let conversation = FileConversationStore(url: stateDirectory.appendingPathComponent("conversation.json"))
    let chat = ChatService(serverURL: serverURL, deviceId: device.deviceId, store: conversation)
    try await chat.connect(token: paired.token, lastMessageId: nil)
    try await chat.send(content: "Hello", attachments: [])
    for await message in chat.incomingMessages where message.role == .assistant && !message.isStreaming {
        return message.content  // "Echo: Hello", after the streamed snapshots
    }
    return nil
}

@Suite struct ClientReadmeExampleTests {
    @Test func theEmbeddingExampleChats() async throws {
        try await Harness.run { harness in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-readme-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let answer = try await embedClient(serverURL: harness.serverURL, stateDirectory: directory)
            #expect(answer == "Echo: Hello")
        }
    }
}
