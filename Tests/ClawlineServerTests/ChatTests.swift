import ClawlineProtocol
import Foundation
import Testing
import WireRuntime

@testable import ClawlineServer

/// Messages, acks, echoes, the assistant's stream and replay, over real sockets.
@Suite struct ChatTests {
    @Test func aMessageIsAcknowledgedEchoedToTheSenderAndAnsweredByAStream() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: "hello world")))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            let echo = try #require(try await socket.next().serverMessage)
            #expect(echo.id.rawValue.hasPrefix("s_") && echo.role == .user && echo.content == "hello world" && !echo.streaming)
            #expect(echo.deviceId == device.deviceID && echo.attachments == nil)
            #expect(echo.timestamp == 1_704_672_000_000)
            let answer = try await TestServer.readAnswer(on: socket)
            #expect(answer.first == .typing(ServerTyping(active: true)))
            #expect(answer.last == .typing(ServerTyping(active: false)))
            let messages = answer.compactMap(\.serverMessage)
            #expect(messages.map(\.content) == ["Echo:", "Echo: hello", "Echo: hello world", "Echo: hello world"])
            #expect(messages.map(\.streaming) == [true, true, true, false])
            #expect(Set(messages.map(\.id)).count == 1 && messages.allSatisfy { $0.role == .assistant && $0.deviceId == nil })
            #expect(socket.violations.isEmpty)
        }
    }

    @Test func aRetryWithTheSameContentIsAcknowledgedAgainAndNotAnsweredTwice() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: "hi")))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            _ = try await socket.next()
            _ = try await TestServer.readAnswer(on: socket)
            socket.send(.message(ClientMessage(id: "c_1", content: "hi", attachments: .value([]))))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            // The retry on a new socket is a retry too.
            socket.close()
            let (again, _) = try await server.connect(device, lastMessageId: .null)
            let replayed = [try await again.next(), try await again.next()].compactMap(\.serverMessage)
            #expect(replayed.map(\.role) == [.user, .assistant])
            again.send(.message(ClientMessage(id: "c_1", content: "hi")))
            #expect(try await again.next() == .ack(Ack(id: "c_1")))
            again.send(.message(ClientMessage(id: "c_2", content: "next")))
            #expect(try await again.next() == .ack(Ack(id: "c_2")))
            #expect(try await again.next().serverMessage?.content == "next")
            #expect(again.violations.isEmpty)
        }
    }

    @Test func theSameIdWithOtherContentOnAnotherSocketIsInvalid() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: "hi")))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            _ = try await socket.next()
            _ = try await TestServer.readAnswer(on: socket)
            socket.close()
            let (again, success) = try await server.connect(device)
            for _ in 0..<success.replayCount { _ = try await again.next() }
            again.send(.message(ClientMessage(id: "c_1", content: "changed")))
            guard case .error(let error) = try await again.next() else { throw TestFailure("expected an error") }
            #expect(error.code == .invalidMessage && error.messageId == "c_1")
        }
    }

    @Test func replayAfterReconnectSendsTheMissedFinalEventsOnceOldestFirst() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: "one")))
            _ = try await socket.next()
            let firstEcho = try #require(try await socket.next().serverMessage)
            _ = try await TestServer.readAnswer(on: socket)
            socket.send(.message(ClientMessage(id: "c_2", content: "two")))
            _ = try await socket.next()
            _ = try await socket.next()
            _ = try await TestServer.readAnswer(on: socket)
            socket.close()

            let (again, success) = try await server.connect(device, lastMessageId: .value(firstEcho.id.rawValue))
            #expect(success.replayCount == 3 && !success.replayTruncated)
            let replayed = try await [again.next(), again.next(), again.next()].compactMap(\.serverMessage)
            #expect(replayed.map(\.content) == ["Echo: one", "two", "Echo: two"])
            #expect(replayed.allSatisfy { !$0.streaming })
            #expect(again.violations.isEmpty)
        }
    }

    @Test func aFailingAssistantAnswersServerErrorNamingTheMessageAndSendsNoFinal() async throws {
        struct Failing: Assistant {
            struct Broken: Error {}
            func answer(_ request: AssistantRequest, snapshot: @Sendable (String) async throws -> Void) async throws -> String {
                try await snapshot("partial")
                throw Broken()
            }
        }
        try await TestServer.run(assistant: Failing()) { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: "hi")))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            _ = try await socket.next()
            #expect(try await socket.next() == .typing(ServerTyping(active: true)))
            #expect(try await socket.next().serverMessage?.streaming == true)
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected an error") }
            #expect(error.code == .serverError && error.messageId == "c_1")
            #expect(try await socket.next() == .typing(ServerTyping(active: false)))
            // Retrying the id of a failed stream is invalid.
            socket.send(.message(ClientMessage(id: "c_1", content: "hi")))
            guard case .error(let retry) = try await socket.next() else { throw TestFailure("expected an error") }
            #expect(retry.code == .invalidMessage && retry.messageId == "c_1")
            #expect(socket.violations.isEmpty)
        }
    }

    @Test func aMessageNamingAnUnknownAssetIsAnsweredAssetNotFound() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(
                .message(
                    ClientMessage(
                        id: "c_1", content: "see", attachments: .value([.asset(AssetAttachment(assetId: "a_123e4567-e89b-12d3-a456-426614174000"))])))
            )
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected an error") }
            #expect(error.code == .assetNotFound && error.messageId == "c_1")
        }
    }
}
