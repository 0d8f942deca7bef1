import ClawlineProtocol
import Foundation
import Testing
import WireRuntime

@testable import ClawlineServer

/// A store that does not answer (a database restarting, or behind a network that drops packets)
/// is refused clearly: the socket answers `server_error` within `storeCallLimit` and reads on,
/// and what the store takes late is still echoed and answered, never acknowledged twice.
@Suite struct StoreBoundTests {
    private static func run(_ body: @Sendable @escaping (TestServer, HeldStoreCalls) async throws -> Void) async throws {
        let calls = HeldStoreCalls()
        try await TestServer.run(wrapStore: { HookedStore(base: $0, beforeAccept: { await calls.hold($0) }) }) { server in
            try await body(server, calls)
        }
    }

    /// Sends `id` and waits for its store call to be held; then moves the bound's clock past it.
    private static func sendHeld(_ id: String, on socket: TestSocket, _ server: TestServer, _ calls: HeldStoreCalls) async throws {
        socket.send(.message(ClientMessage(id: ClientMessageId(id), content: "said \(id)")))
        let held = await calls.waitUntilHeld(id)
        #expect(held, "the store call of \(id) is held")
        server.keepaliveClock.advance(by: ProviderLimits().storeCallLimit)
    }

    /// Reads frames until one satisfies `last`; returns them all.
    private static func frames(on socket: TestSocket, until last: (ServerFrame) -> Bool) async throws -> [ServerFrame] {
        var frames: [ServerFrame] = []
        while true {
            let frame = try await socket.next()
            frames.append(frame)
            if last(frame) { return frames }
        }
    }

    private static func userEchoes(_ frames: [ServerFrame]) -> [String] {
        frames.compactMap { frame in frame.serverMessage.flatMap { $0.role == .user ? $0.content : nil } }
    }

    @Test func aMessageTheStoreHasNotTakenInTimeIsRefusedAndWhatItTakesLateIsEchoedAndAnsweredOnce() async throws {
        try await Self.run { server, calls in
            let (socket, _) = try await server.connect(try await server.pair())
            try await Self.sendHeld("c_1", on: socket, server, calls)
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected server_error") }
            #expect(error.code == .serverError && error.messageId == "c_1")
            #expect(error.message.contains("send it again"))

            // The store takes it late: the account hears the echo and the answer, as if the socket had waited.
            calls.release()
            var late = try await Self.frames(on: socket) { $0.serverMessage?.role == .assistant && $0.serverMessage?.streaming == false }
            if late.contains(.typing(ServerTyping(active: true))) { late.append(try await socket.next()) }  // the typing that ends it
            #expect(Self.userEchoes(late) == ["said c_1"])
            // The client's retry under the same id is acknowledged, and nothing is echoed or answered again.
            socket.send(.message(ClientMessage(id: "c_1", content: "said c_1")))
            socket.send(text: "{}")
            let retry = try await Self.frames(on: socket) { if case .error(let marker) = $0 { marker.code == .invalidMessage } else { false } }
            #expect(retry.first == .ack(Ack(id: "c_1")))
            #expect(Self.userEchoes(retry).isEmpty && !retry.contains { $0.serverMessage?.role == .assistant })
        }
    }

    @Test func aDeviceWithFourMessagesTheStoreHasNotTakenIsRefusedAtOnceUntilTheyEnd() async throws {
        try await Self.run { server, calls in
            let (socket, _) = try await server.connect(try await server.pair())
            for number in 1...ProviderHub.maxLateMessagesPerDevice {
                try await Self.sendHeld("c_\(number)", on: socket, server, calls)
                guard case .error(let error) = try await socket.next() else { throw TestFailure("expected server_error") }
                #expect(error.code == .serverError && error.messageId == "c_\(number)")
            }
            // No store call is made for the fifth: it is refused without the clock moving.
            socket.send(.message(ClientMessage(id: "c_5", content: "said c_5")))
            guard case .error(let refused) = try await socket.next() else { throw TestFailure("expected server_error") }
            #expect(refused.code == .serverError && refused.messageId == "c_5" && refused.message.contains("earlier messages"))
            #expect(!calls.held.contains("c_5"))

            calls.release()
            var echoes: Set<String> = []
            while echoes.count < ProviderHub.maxLateMessagesPerDevice {
                let frame = try await socket.next()
                if let echo = frame.serverMessage, echo.role == .user { echoes.insert(echo.content) }
            }
            #expect(echoes == Set((1...ProviderHub.maxLateMessagesPerDevice).map { "said c_\($0)" }))
            // The late calls have ended: the device's messages are taken again.
            let taken = try await server.eventually {
                await server.hub.lateMessages.isEmpty
            }
            #expect(taken)
            server.clock.advance(by: .seconds(1))  // a new window of the message rate
            socket.send(.message(ClientMessage(id: "c_5", content: "said c_5")))
            let answered = try await Self.frames(on: socket) { $0 == .ack(Ack(id: "c_5")) || $0.isError }
            #expect(answered.last == .ack(Ack(id: "c_5")))
        }
    }
}

extension StoreBoundTests {
    @Test func anAuthWhoseReplayTheStoreDoesNotReadInTimeIsAnsweredServerErrorAndClosedWith1011() async throws {
        let calls = HeldStoreCalls()
        let wrap: @Sendable (SQLiteProviderStore) -> any ProviderStore = { base in
            HookedStore(base: base, beforeEvents: { _ in await calls.hold("replay") })
        }
        try await TestServer.run(wrapStore: wrap) { server in
            let device = try await server.pair()
            let socket = server.socket()
            socket.send(.auth(Auth(token: device.token, deviceId: device.deviceID)))
            let held = await calls.waitUntilHeld("replay")
            #expect(held, "the replay's read is held")
            server.keepaliveClock.advance(by: ProviderLimits().storeCallLimit)
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected server_error") }
            #expect(error.code == .serverError)
            #expect(try await socket.closeCode() == 1011)
            calls.release()
        }
    }
}

extension ServerFrame {
    fileprivate var isError: Bool { if case .error = self { true } else { false } }
}
