import ClawlineProtocol
import ClawlineServer
import Foundation
import ServiceLifecycle
import Testing

// The server examples of docs/provider.md, compiled so they stay true.

/// An assistant that answers in capitals, one snapshot per line of its answer.
struct ShoutingAssistant: Assistant {
    func answer(_ request: AssistantRequest, snapshot: @Sendable (String) async throws -> Void) async throws -> String {
        let answer = request.content.uppercased()
        try await snapshot(String(answer.prefix(answer.count / 2)))  // streamed as `streaming: true`
        return answer  // the final message, stored and replayed
    }
}

func runProvider(dataDirectory: String) async throws {
    let store = try await SQLiteProviderStore.open(path: dataDirectory + "/clawline.sqlite")
    let key = try TokenAuthority.loadOrCreateKey(at: dataDirectory + "/signing-key")
    let provider = try await ClawlineServer.service(
        configuration: ClawlineServerConfiguration(port: 8080, uploadsDirectory: dataDirectory + "/uploads"),
        store: store, signingKey: key, assistant: ShoutingAssistant()
    ) { port in print("listening on http://127.0.0.1:\(port)") }
    try await ServiceGroup(services: [provider], gracefulShutdownSignals: [.sigterm, .sigint], logger: .init(label: "provider")).run()
    try await store.close()
}

@Suite struct ServerReadmeExampleTests {
    @Test func theShoutingAssistantStreamsThenAnswers() async throws {
        let request = AssistantRequest(userID: "u", deviceID: "d", messageID: "s_1", content: "hello")
        let answer = try await ShoutingAssistant().answer(request) { snapshot in #expect(snapshot == "HE") }
        #expect(answer == "HELLO")
        _ = runProvider  // compiled, not run: it would listen on port 8080
    }
}
