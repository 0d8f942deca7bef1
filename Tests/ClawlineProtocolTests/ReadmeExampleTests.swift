import ClawlineProtocol
import Foundation
import Testing
import WireTestSupport

/// The documentation's code compiles: every block of README.md and docs/*.md marked
/// `<!-- compiled: PATH -->` appears verbatim (indentation aside, `import` lines left out) in the
/// Swift file PATH of a test target, which the test build compiles; the Clawline example also runs here.
@Suite struct ReadmeExampleTests {
    static let root = Golden.repositoryRoot()

    /// The documents whose Swift blocks may be marked: README.md and docs/*.md.
    static func documents() throws -> [URL] {
        let docs = root.appendingPathComponent("docs")
        let names = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
        return [root.appendingPathComponent("README.md")] + names.map { docs.appendingPathComponent($0) }
    }

    /// The marked blocks of the documents: the compiled file's path and the block's lines.
    static func markedBlocks() throws -> [(path: String, lines: [String])] {
        var blocks: [(String, [String])] = []
        for document in try documents() {
            let lines = try String(contentsOf: document, encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() where line.hasPrefix("<!-- compiled: ") && line.hasSuffix(" -->") {
                let path = String(line.dropFirst("<!-- compiled: ".count).dropLast(" -->".count))
                guard index + 1 < lines.count, lines[index + 1] == "```swift" else { continue }
                let body = lines[(index + 2)...].prefix { $0 != "```" }
                blocks.append((path, Array(body)))
            }
        }
        return blocks
    }

    /// Lines without their indentation and without blank and `import` lines, joined.
    static func normalized(_ lines: some Sequence<String>) -> String {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("import ") }.joined(separator: "\n")
    }

    @Test func everyMarkedBlockIsCompiled() throws {
        let blocks = try Self.markedBlocks()
        #expect(blocks.count >= 6, "the documentation marks its examples")
        for block in blocks {
            let file = try String(contentsOf: Self.root.appendingPathComponent(block.path), encoding: .utf8)
            let compiled = Self.normalized(file.components(separatedBy: "\n"))
            #expect(compiled.contains(Self.normalized(block.lines)), "the README block compiled by \(block.path) differs from it")
        }
    }

    /// A handler that records what the example dispatches.
    actor Recorder: ServerFrameHandler {
        var acks: [ClientMessageId] = []
        func handlePairResult(_ message: PairResult) async throws {}
        func handlePairApprovalRequest(_ message: PairApprovalRequest) async throws {}
        func handleAuthResult(_ message: AuthResult) async throws {}
        func handleMessage(_ message: ServerMessage) async throws {}
        func handleAck(_ message: Ack) async throws { acks.append(message.id) }
        func handleTyping(_ message: ServerTyping) async throws {}
        func handleError(_ message: ErrorMessage) async throws {}
    }

    @Test func theClawlineExampleRuns() async throws {
        let socket = ReadmeExamples.Socket()
        let recorder = Recorder()
        try await ReadmeExamples.appAndServer(
            socket: socket, token: "jwt", jwt: "jwt", deviceId: "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
            received: #"{"type":"ack","id":"c_1"}"#, bytes: Array("{not json".utf8), httpBody: Array(#"{"protocolVersion":1}"#.utf8),
            chatModel: recorder, log: { Issue.record("unexpected rejection: \($0)") }
        )
        #expect(await recorder.acks == ["c_1"])
        #expect(socket.closedWith == .some(1002), "bytes that are not JSON close with 1002")
        #expect(socket.sent.count == 4, "hello, the two pair results and the version; no error frame for bytes that are not JSON")
        #expect(socket.sent[1] == #"{"success":true,"token":"jwt","type":"pair_result","userId":"user_3f2e"}"#)
    }

    @Test func theSessionRulesExampleAnswersAMessageBeforeAuthentication() {
        let socket = ReadmeExamples.Socket()
        ReadmeExamples.sessionRules(socket: socket, message: ClientMessage(id: "c_1", content: "hi"))
        #expect(socket.sent.count == 1)
        #expect(socket.sent.first?.contains(#""code":"auth_failed""#) == true)
        #expect(socket.closedWith == .some(1008))
    }
}
