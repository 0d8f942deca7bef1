import ClawlineProtocol
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import ClawlineServer

/// An assistant that yields `count` growing snapshots at once, says so, then waits for the test
/// before it answers.
final class FloodingAssistant: Assistant {
    let count: Int
    private let gate: AsyncStream<Void>
    private let opener: AsyncStream<Void>.Continuation
    /// Yields once every snapshot was offered.
    let offered: AsyncStream<Void>
    private let offeredSink: AsyncStream<Void>.Continuation

    init(count: Int) {
        self.count = count
        (gate, opener) = AsyncStream<Void>.makeStream()
        (offered, offeredSink) = AsyncStream<Void>.makeStream()
    }

    /// Lets the waiting answer finish.
    func open() { opener.yield() }

    func answer(_ request: AssistantRequest, snapshot: @Sendable (String) async throws -> Void) async throws -> String {
        for index in 1...count { try await snapshot(String(repeating: "w ", count: index)) }
        offeredSink.yield()
        for await _ in gate { break }
        return String(repeating: "w ", count: count) + "done"
    }
}

/// However many snapshots an assistant yields, a device gets the burst, then one per interval,
/// each with the whole text so far.
@Suite struct SnapshotBoundTests {
    @Test func snapshotsPastTheBurstWaitForTheIntervalAndOnlyTheLatestGoes() async throws {
        let assistant = FloodingAssistant(count: 1000)
        let limits = ProviderLimits(snapshotBurst: 4, snapshotInterval: .milliseconds(100))
        try await TestServer.run(assistant: assistant, limits: limits) { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: "flood")))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            #expect(try await socket.next().serverMessage?.role == .user)
            #expect(try await socket.next() == .typing(ServerTyping(active: true)))
            for index in 1...4 {
                let snapshot = try #require(try await socket.next().serverMessage)
                #expect(snapshot.streaming && snapshot.content == String(repeating: "w ", count: index))
            }
            // The 996 others wait for the interval; of them, only the latest is sent.
            for await _ in assistant.offered { break }
            await server.clock.waitForSleepers(atLeast: 2)
            server.clock.advance(by: .milliseconds(100))
            let latest = try #require(try await socket.next().serverMessage)
            #expect(latest.streaming && latest.content == String(repeating: "w ", count: 1000))
            assistant.open()
            let final = try #require(try await socket.next().serverMessage)
            #expect(!final.streaming && final.content == String(repeating: "w ", count: 1000) + "done")
            #expect(try await socket.next() == .typing(ServerTyping(active: false)))
            #expect(socket.violations.isEmpty)
        }
    }

    @Test func theEchoAssistantSendsAtMostItsSnapshotCount() async throws {
        let snapshots = NIOLockedValueBox<[String]>([])
        let long = Array(repeating: "a", count: 32_000).joined(separator: " ")
        let final = try await EchoAssistant().answer(AssistantRequest(userID: "u", deviceID: "d", messageID: "s_1", content: long)) {
            snapshot in snapshots.withLockedValue { $0.append(snapshot) }
        }
        let sent = snapshots.withLockedValue { $0 }
        #expect(sent.count <= EchoAssistant.maxSnapshots && sent.count >= 2)
        #expect(sent.last == final && final == "Echo: " + long)
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $1.hasPrefix($0) && $1.count > $0.count })

        let short = NIOLockedValueBox<[String]>([])
        _ = try await EchoAssistant().answer(AssistantRequest(userID: "u", deviceID: "d", messageID: "s_2", content: "one two")) {
            snapshot in short.withLockedValue { $0.append(snapshot) }
        }
        #expect(short.withLockedValue { $0 } == ["Echo:", "Echo: one", "Echo: one two"])
    }
}
