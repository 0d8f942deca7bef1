import Foundation
import Testing
import WireRuntime
import WireTestSupport

/// The CoachMe chat stream (seed 001) generated from Spec/examples/coachme.yaml, read from
/// Server-Sent Events with WireRuntime's parser.
@Suite struct CoachMeProtocolTests {
    static let frames = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Frames")

    @Test(arguments: GoldenFrames.files(frames, "server", "valid")) func validServer(_ file: URL) throws {
        try GoldenFrames.checkValid(file, ServerFrame.self)
    }
    @Test(arguments: GoldenFrames.files(frames, "server", "invalid")) func invalidServer(_ file: URL) throws {
        try GoldenFrames.checkInvalid(file, ServerFrame.self)
    }

    /// The three `data:` lines of the seed's ChatStreamService test, as the server sends them
    /// (each event ended by a blank line).
    static let seedStream = """
        data: {"type":"token","content":"Hello"}

        data: {"type":"token","content":" world"}

        data: {"type":"done","message_id":"550e8400-e29b-41d4-a716-446655440000","usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}


        """

    @Test func theReadmeExampleReadsTheStreamedAnswer() async throws {
        let stream = AsyncStream<[UInt8]> { continuation in
            for chunk in Array(Self.seedStream.utf8).chunked(by: 5) { continuation.yield(chunk) }
            continuation.finish()
        }
        #expect(try await ReadmeExamples.streamedAnswer(bytes: stream) == "Hello world")
    }

    @Test func theSeedsStreamDecodesToTheExpectedEvents() async throws {
        let chunks = Array(Self.seedStream.utf8).chunked(by: 7)
        let stream = AsyncStream<[UInt8]> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
        var frames: [ServerFrame] = []
        for try await result in stream.serverSentEvents.frames(ServerFrame.self) {
            frames.append(try #require(result.frame, "\(result.rejectionReason ?? "")"))
        }
        #expect(
            frames == [
                .token(Token(content: "Hello")),
                .token(Token(content: " world")),
                .done(
                    Done(messageId: "550e8400-e29b-41d4-a716-446655440000", usage: TokenUsage(promptTokens: 10, completionTokens: 2, totalTokens: 12))
                ),
            ])
        let text = frames.compactMap { if case .token(let token) = $0 { return token.content } else { return nil } }.joined()
        #expect(text == "Hello world")
    }

    @Test func theRequestBodyAndEndpoint() {
        let request = ChatRequest(message: "How do I stay focused?", conversationId: "550e8400-e29b-41d4-a716-446655440000")
        #expect(
            JSONWriter.string(request.jsonValue())
                == #"{"conversation_id":"550e8400-e29b-41d4-a716-446655440000","message":"How do I stay focused?"}"#)
        #expect(CoachMe.Endpoints.chatStream.method == .post && CoachMe.Endpoints.chatStream.requiresBearerToken)
        #expect(CoachMe.transportKind == "sse")
        #expect(CoachMe.Constants.tokenBufferInterval == .milliseconds(75))
        #expect(ClientFrame.knownTags.isEmpty, "the client sends a request body, not frames")
    }
}

extension Array {
    func chunked(by size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
