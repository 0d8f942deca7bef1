import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import ClawlineClient

/// The portable cores of the Apple-only shims: KeychainSecretStore's decisions (KeychainItems)
/// and URLSessionTransport's connection (TaskConnection), each over a fake of the calls the shim makes.
@Suite("Platform shims, tested through their portable cores")
struct PlatformShimTests {
    /// An in-memory keychain whose next status can be forced.
    final class FakeKeychain: KeychainCalls, @unchecked Sendable {
        private let state = NIOLockedValueBox((items: [String: Data](), calls: [String](), forced: KeychainOutcome?.none))

        func force(_ outcome: KeychainOutcome) { state.withLockedValue { $0.forced = outcome } }
        var calls: [String] { state.withLockedValue { $0.calls } }

        private func record(_ call: String, _ body: (inout [String: Data]) -> KeychainOutcome) -> KeychainOutcome {
            state.withLockedValue { state in
                state.calls.append(call)
                if let forced = state.forced {
                    state.forced = nil
                    return forced
                }
                return body(&state.items)
            }
        }

        func copy(account: String) -> (KeychainOutcome, Data?) {
            var found: Data?
            let outcome = record("copy \(account)") { items in
                found = items[account]
                return found == nil ? .itemNotFound : .success
            }
            return (outcome, outcome == .success ? found : nil)
        }

        func update(account: String, data: Data) -> KeychainOutcome {
            record("update \(account)") { items in
                guard items[account] != nil else { return .itemNotFound }
                items[account] = data
                return .success
            }
        }

        func add(account: String, data: Data) -> KeychainOutcome {
            record("add \(account)") { items in
                items[account] = data
                return .success
            }
        }

        func delete(account: String) -> KeychainOutcome {
            record("delete \(account)") { items in items.removeValue(forKey: account) == nil ? .itemNotFound : .success }
        }
    }

    @Test("The keychain store reads nothing as nil, adds then updates, and removing nothing is fine")
    func keychainDecisions() throws {
        let keychain = FakeKeychain()
        let store = KeychainItems(calls: keychain)
        #expect(try store.read("token") == nil)
        try store.write(Data("a".utf8), as: "token")
        try store.write(Data("b".utf8), as: "token")
        #expect(try store.read("token") == Data("b".utf8))
        try store.remove("token")
        try store.remove("token")
        #expect(try store.read("token") == nil)
        #expect(
            keychain.calls == [
                "copy token", "update token", "add token", "update token", "copy token", "delete token", "delete token", "copy token",
            ])
    }

    @Test("A keychain failure is a storage error that names the item and the status")
    func keychainFailures() throws {
        let keychain = FakeKeychain()
        let store = KeychainItems(calls: keychain)
        for (operation, expected) in [
            ({ _ = try store.read("device-id") }, "keychain read of device-id failed (-25308)"),
            ({ try store.write(Data(), as: "device-id") }, "keychain write of device-id failed (-25308)"),
            ({ try store.remove("device-id") }, "keychain delete of device-id failed (-25308)"),
        ] as [(() throws -> Void, String)] {
            keychain.force(.failed(-25308))
            #expect(throws: ClawlineClientError.storage(expected)) { try operation() }
        }
    }

    /// A task-based socket: messages the test pushes in, frames the connection sends out.
    final class FakeTask: WebSocketTaskCalls, @unchecked Sendable {
        enum Incoming {
            case text(String)
            case binary
            case closed(Int?)
        }
        let incoming: AsyncStream<Incoming>
        let push: AsyncStream<Incoming>.Continuation
        let sent: AsyncStream<String>
        private let sentSink: AsyncStream<String>.Continuation
        private let state = NIOLockedValueBox((iterator: AsyncStream<Incoming>.AsyncIterator?.none, closeCode: Int?.none, closedWith: [Int]()))
        let failsToOpen: Bool

        init(failsToOpen: Bool = false) {
            (incoming, push) = AsyncStream.makeStream()
            (sent, sentSink) = AsyncStream.makeStream()
            self.failsToOpen = failsToOpen
            state.withLockedValue { $0.iterator = incoming.makeAsyncIterator() }
        }

        var closedWith: [Int] { state.withLockedValue { $0.closedWith } }

        func open() async throws {
            if failsToOpen { throw URLError(.cannotConnectToHost) }
        }

        func receive() async throws -> String? {
            // One reader: the connection's; the iterator is taken out while it waits.
            var iterator = state.withLockedValue { $0.iterator }!
            let next = await iterator.next()
            state.withLockedValue { $0.iterator = iterator }
            switch next {
            case .text(let text)?: return text
            case .binary?: return nil
            case .closed(let code)?:
                state.withLockedValue { $0.closeCode = code }
                throw URLError(.networkConnectionLost)
            case nil: throw CancellationError()
            }
        }

        func send(_ text: String) async throws { sentSink.yield(text) }
        func close(code: Int) { state.withLockedValue { $0.closedWith.append(code) } }
        var peerCloseCode: Int? { state.withLockedValue { $0.closeCode } }
    }

    @Test("Text messages become events in order, binary ones are skipped, and the peer's close code ends the events")
    func taskConnectionEvents() async throws {
        let task = FakeTask()
        let connection = try await TaskConnection.open(task, url: URL(string: "ws://127.0.0.1:1/ws")!)
        task.push.yield(.text("one"))
        task.push.yield(.binary)
        task.push.yield(.text("two"))
        task.push.yield(.closed(1008))
        var events: [WebSocketEvent] = []
        for await event in connection.events { events.append(event) }
        #expect(events == [.text("one"), .text("two"), .closed(code: 1008)])
    }

    @Test("Frames go out in the order they were queued; close passes its code on")
    func taskConnectionSends() async throws {
        let task = FakeTask()
        let connection = try await TaskConnection.open(task, url: URL(string: "ws://127.0.0.1:1/ws")!)
        for number in 1...20 { connection.send("frame \(number)") }
        var sent: [String] = []
        for await text in task.sent {
            sent.append(text)
            if sent.count == 20 { break }
        }
        #expect(sent == (1...20).map { "frame \($0)" })
        connection.close(code: 1000)
        #expect(task.closedWith == [1000])
    }

    @Test("A socket that does not open is connectionFailed, naming the address")
    func taskConnectionOpenFails() async throws {
        do {
            _ = try await TaskConnection.open(FakeTask(failsToOpen: true), url: URL(string: "ws://127.0.0.1:1/ws")!)
            Issue.record("expected connectionFailed")
        } catch let error as ClawlineClientError {
            guard case .connectionFailed(let detail) = error else { throw error }
            #expect(detail.hasPrefix("ws://127.0.0.1:1/ws: "))
        }
    }
}
