import ClawlineProtocol
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

@testable import ClawlineServer

/// The provider's logs as JSON lines: what they carry, and what they never do.
@Suite struct LoggingTests {
    /// Lines a handler wrote.
    final class Lines: Sendable {
        private let lines = NIOLockedValueBox<[String]>([])
        func append(_ line: String) { lines.withLockedValue { $0.append(line) } }
        var all: [String] { lines.withLockedValue { $0 } }
    }

    /// Pairs a device, chats and returns the token, the content sent and every log line (trace level).
    private func chat(logsContent: Bool) async throws -> (token: String, content: String, lines: [String]) {
        let lines = Lines()
        let content = "the secret plans for tuesday"
        let token = try await TestServer.run(
            configure: { $0.logsContent = logsContent },
            logHandler: { label in JSONLogHandler(label: label, logLevel: .trace, write: { lines.append($0) }) }
        ) { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: content)))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            _ = try await socket.next()
            _ = try await TestServer.readAnswer(on: socket)
            return device.token
        }
        return (token, content, lines.all)
    }

    @Test("logs are one JSON object per line, with the session, device and account; never a token, never content")
    func noTokenAndNoContent() async throws {
        let (token, content, lines) = try await chat(logsContent: false)
        #expect(lines.count > 10, "the trace level logs every frame")
        let objects = try lines.map { line in
            #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil)
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.allSatisfy { $0["time"] is String && $0["level"] is String && $0["message"] is String })
        let sent = objects.filter { $0["message"] as? String == "sending" }
        #expect(sent.contains { $0["type"] as? String == "ack" && $0["session"] != nil && $0["device"] != nil && $0["account"] != nil })
        #expect(!lines.contains { $0.contains(token) }, "a token was logged")
        #expect(!lines.contains { $0.contains(content) }, "message content was logged without --log-content")
        #expect(!lines.contains { $0.contains(String(token.split(separator: ".").last ?? "")) }, "a token's signature was logged")
    }

    @Test("--log-content logs message text at trace level, and still never a token")
    func contentOnlyWhenAsked() async throws {
        let (token, content, lines) = try await chat(logsContent: true)
        #expect(lines.contains { $0.contains(content) })
        #expect(!lines.contains { $0.contains(token) }, "a token was logged")
    }
}
