import ClawlineProtocol
import Foundation
import Testing

@testable import ClawlineServer

/// A socket gets its account's events in the order the store committed them, even when one of
/// them is never sent to it live: the socket holds the events after a missing one, and the node
/// reads the missing one from the store.
@Suite struct EventOrderTests {
    struct AnswerLost: Error {}

    @Test("An event committed but never sent live (its store call failed after the commit) reaches the socket from the store, before the next")
    func anEventNeverSentLiveIsReadFromTheStoreInOrder() async throws {
        // The node's wait for a missing event runs on real time here, kept short; the test waits
        // for the frames, never for the time.
        let limits = ProviderLimits(missingEventWait: .milliseconds(50))
        let store: @Sendable (SQLiteProviderStore) -> any ProviderStore = { base in
            HookedStore(base: base, afterAccept: { id in if id == "c_lost" { throw AnswerLost() } })
        }
        try await TestServer.run(realTime: true, limits: limits, wrapStore: store) { server in
            let (socket, _) = try await server.connect(try await server.pair())
            socket.send(.message(ClientMessage(id: "c_lost", content: "lost")))
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected server_error for c_lost") }
            #expect(error.code == .serverError && error.messageId == "c_lost")
            socket.send(.message(ClientMessage(id: "c_next", content: "next")))
            var echoes: [String] = []
            while echoes.count < 2 {
                guard let message = try await socket.next().serverMessage, message.role == .user, !message.streaming else { continue }
                echoes.append(message.content)
            }
            #expect(echoes == ["lost", "next"], "the event the store committed first comes first")
        }
    }
}
