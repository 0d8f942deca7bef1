import ClawlineProtocol
import Foundation
import Testing
import WireRuntime

@testable import ClawlineServer

/// Streams across takeovers, stalled streams, the answer queue, rate limits, sizes and replay limits.
@Suite struct StreamAndLimitTests {
    /// Sends a message and reads its ack and echo.
    func send(_ id: ClientMessageId, _ content: String, on socket: TestSocket) async throws {
        socket.send(.message(ClientMessage(id: id, content: content)))
        #expect(try await socket.next() == .ack(Ack(id: id)))
        #expect(try await socket.next().serverMessage?.content == content)
    }

    @Test func aTakeoverMovesTheStreamToTheNewSocketFromItsLatestSnapshot() async throws {
        let assistant = GatedAssistant()
        try await TestServer.run(assistant: assistant) { server in
            let device = try await server.pair()
            let (old, _) = try await server.connect(device)
            try await send("c_1", "story", on: old)
            #expect(try await old.next() == .typing(ServerTyping(active: true)))
            let snapshot = try #require(try await old.next().serverMessage)
            #expect(snapshot.content == "story" && snapshot.streaming)

            let (new, auth) = try await server.connect(device, lastMessageId: .null)
            #expect(auth.replayCount == 1)
            #expect(try await new.next().serverMessage?.content == "story")
            #expect(try await new.next() == .message(snapshot))
            guard case .error(let replaced) = try await old.next() else { throw TestFailure("expected session_replaced") }
            #expect(replaced.code == .sessionReplaced)

            assistant.open()
            let final = try #require(try await new.next().serverMessage)
            #expect(final.id == snapshot.id && final.content == "story done" && !final.streaming)
            #expect(try await new.next() == .typing(ServerTyping(active: false)))
            #expect(new.violations.isEmpty && old.violations.isEmpty)
        }
    }

    /// The contract reports a failed stream with its `messageId`; after a takeover that id was sent
    /// on the old connection, which the spec's correlation (`scope: peer`) allows, as a warning a
    /// one-connection check cannot confirm, never an error.
    @Test func aStreamThatFailsAfterATakeoverNamesTheMessageOnTheNewSocket() async throws {
        try await TestServer.run(assistant: GatedAssistant(stalls: true)) { server in
            let device = try await server.pair()
            let (old, _) = try await server.connect(device)
            try await send("c_1", "slow", on: old)
            #expect(try await old.next() == .typing(ServerTyping(active: true)))
            #expect(try await old.next().serverMessage?.streaming == true)

            let (new, _) = try await server.connect(device, lastMessageId: .null)
            #expect(try await new.next().serverMessage?.content == "slow")
            #expect(try await new.next().serverMessage?.streaming == true)
            await server.clock.waitForSleepers(atLeast: 1)
            server.clock.advance(by: Clawline.Constants.streamInactivityTimeout)
            guard case .error(let error) = try await new.next() else { throw TestFailure("expected server_error") }
            #expect(error.code == .serverError && error.messageId == "c_1")
            #expect(try await new.next() == .typing(ServerTyping(active: false)))
            #expect(new.violations.allSatisfy { $0.severity == .warning && $0.ruleName == "error_names_message" })
            #expect(new.violations.count == 1)
        }
    }

    @Test func aStreamWithNoUpdateForTheTimeoutFailsWithServerError() async throws {
        try await TestServer.run(assistant: GatedAssistant(stalls: true)) { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            try await send("c_1", "slow", on: socket)
            #expect(try await socket.next() == .typing(ServerTyping(active: true)))
            #expect(try await socket.next().serverMessage?.streaming == true)
            await server.clock.waitForSleepers(atLeast: 1)
            server.clock.advance(by: Clawline.Constants.streamInactivityTimeout)
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected server_error") }
            #expect(error.code == .serverError && error.messageId == "c_1")
            #expect(try await socket.next() == .typing(ServerTyping(active: false)))
        }
    }

    @Test func theAnswerQueueHoldsTwentyMessagesBehindTheStreamThenAnswersRateLimited() async throws {
        let assistant = GatedAssistant()
        try await TestServer.run(assistant: assistant) { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            try await send("c_0", "first", on: socket)
            #expect(try await socket.next() == .typing(ServerTyping(active: true)))
            _ = try await socket.next()
            for number in 1...20 {
                if number % 5 == 0 { server.clock.advance(by: .seconds(1)) }
                try await send("c_\(number)", "queued \(number)", on: socket)
            }
            server.clock.advance(by: .seconds(1))
            socket.send(.message(ClientMessage(id: "c_21", content: "one too many")))
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected rate_limited") }
            #expect(error.code == .rateLimited && error.messageId == "c_21")
            assistant.open()
            #expect(try await socket.next().serverMessage?.content == "first done")
            #expect(try await socket.next() == .typing(ServerTyping(active: false)))
            #expect(try await socket.next().serverMessage?.content == "queued 1")
            #expect(socket.violations.isEmpty)
        }
    }

    @Test func messagesBeyondFivePerSecondAreRateLimitedAndTheWindowSlides() async throws {
        try await TestServer.run(assistant: GatedAssistant(stalls: true)) { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            try await send("c_1", "m1", on: socket)
            _ = try await socket.next()
            _ = try await socket.next()
            for number in 2...5 { try await send("c_\(number)", "m\(number)", on: socket) }
            socket.send(.message(ClientMessage(id: "c_6", content: "m6")))
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected rate_limited") }
            #expect(error.code == .rateLimited)
            server.clock.advance(by: .seconds(1))
            try await send("c_7", "m7", on: socket)
        }
    }

    @Test func aDevicesRateWindowSpansItsConnections() async throws {
        try await TestServer.run(assistant: GatedAssistant(stalls: true)) { server in
            let device = try await server.pair()
            let (first, _) = try await server.connect(device)
            try await send("c_1", "m1", on: first)
            _ = try await first.next()
            _ = try await first.next()
            for number in 2...5 { try await send("c_\(number)", "m\(number)", on: first) }
            first.close()
            server.clock.advance(by: .milliseconds(500))
            let (second, _) = try await server.connect(device, lastMessageId: .null)
            for _ in 0..<5 { _ = try await second.next() }
            second.send(.message(ClientMessage(id: "c_6", content: "too soon")))
            guard case .error(let error) = try await nextNotStreamed(second) else { throw TestFailure("expected rate_limited") }
            #expect(error.code == .rateLimited)
            server.clock.advance(by: .milliseconds(600))
            second.send(.message(ClientMessage(id: "c_7", content: "later")))
            #expect(try await nextNotStreamed(second) == .ack(Ack(id: "c_7")))
        }
    }

    /// The next frame that is not part of an answer's stream: the stream of `c_1`, cancelled when
    /// the first socket closes, may end (typing off) at any point on the second.
    func nextNotStreamed(_ socket: TestSocket) async throws -> ServerFrame {
        while true {
            let frame = try await socket.next()
            switch frame {
            case .message, .typing: continue
            default: return frame
            }
        }
    }

    @Test func theThirdOversizeFrameWithinAMinuteClosesTheSocket() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            let tooLong = String(repeating: "x", count: Clawline.Constants.maxContentBytes + 1)
            for attempt in 1...3 {
                socket.send(.message(ClientMessage(id: "c_\(attempt)", content: tooLong)))
                guard case .error(let error) = try await socket.next() else { throw TestFailure("expected payload_too_large") }
                #expect(error.code == .payloadTooLarge)
            }
            #expect(try await socket.closeCode() == 1008)
        }
    }

    @Test func aFrameOverTheLargestIsAnsweredPayloadTooLargeThenClosedWith1009() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            // Fully escaped content at its limit is a valid frame of about 400 KB: read and answered.
            let escaped = ClientMessage(id: "c_escaped", content: String(repeating: "\u{1}", count: Clawline.Constants.maxContentBytes))
            #expect(escaped.encoded().count > 384 * 1024)
            socket.send(.message(escaped))
            #expect(try await socket.next() == .ack(Ack(id: "c_escaped")))
            #expect(try await socket.next().serverMessage?.content == escaped.content)
            _ = try await TestServer.readAnswer(on: socket)

            let huge = #"{"type":"message","id":"c_huge","content":""# + String(repeating: "z", count: Clawline.Constants.maxFrameBytes) + #""}"#
            socket.send(text: huge)
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected payload_too_large") }
            #expect(error.code == .payloadTooLarge && error.messageId == nil)
            #expect(try await socket.closeCode() == 1009)
        }
    }

    @Test func aFrameOverTwiceTheLargestIsClosedUnanswered() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(text: String(repeating: " ", count: 2 * Clawline.Constants.maxFrameBytes + 1))
            #expect(try await socket.closeCode() == 1009)
        }
    }

    @Test func aLegalMessageOfThreeHundredKilobytesIsAccepted() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            let image = ImageAttachment(mimeType: .imagePng, data: Data(repeating: 0xAB, count: 200_000).base64EncodedString())
            let content = String(repeating: "y", count: 60_000)
            socket.send(.message(ClientMessage(id: "c_big", content: content, attachments: .value([.image(image)]))))
            #expect(try await socket.next() == .ack(Ack(id: "c_big")))
            #expect(try await socket.next().serverMessage?.attachments == [.image(image)])
        }
    }

    @Test func replayCarriesTheNewestFiveHundredEventsAndSaysItWasTruncated() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            for number in 1...520 {
                let message = ServerMessage(id: "s_\(number)", role: .assistant, content: "\(number)", timestamp: number, streaming: false)
                try await server.store.append(
                    StoredEvent(eventID: message.id.rawValue, userID: device.userID.rawValue, frame: ServerFrame.message(message).encodedText()))
            }
            for cursor: Nullable<String> in [.absent, .value("s_unknown")] {
                let (socket, auth) = try await server.connect(device, lastMessageId: cursor)
                #expect(auth.replayCount == 500 && auth.replayTruncated)
                #expect(try await socket.next().serverMessage?.id == "s_21")
                socket.close()
            }
            let (socket, auth) = try await server.connect(device, lastMessageId: .value("s_510"))
            #expect(auth.replayCount == 10 && !auth.replayTruncated)
            #expect(try await socket.next().serverMessage?.id == "s_511")
        }
    }
}
