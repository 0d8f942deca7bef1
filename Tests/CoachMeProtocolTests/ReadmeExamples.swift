import Foundation
import WireRuntime

/// The marked CoachMe example of docs/sdk.md, compiled (see `ReadmeExampleTests` in ClawlineProtocolTests).
enum ReadmeExamples {
    /// The example of reading a streamed answer from Server-Sent Events.
    static func streamedAnswer(bytes: AsyncStream<[UInt8]>) async throws -> String {
        var answer = ""
        for try await result in bytes.serverSentEvents.frames(ServerFrame.self) {  // bytes: AsyncSequence of [UInt8] or Data chunks
            if case .decoded(.token(let token), _) = result { answer += token.content }
        }
        return answer
    }
}
