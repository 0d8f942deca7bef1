import Foundation
import WireRuntime

/// The README's marked CoachMe example, compiled (see `ReadmeExampleTests` in ClawlineProtocolTests).
enum ReadmeExamples {
    /// The README's example of reading a streamed answer from Server-Sent Events.
    static func streamedAnswer(bytes: AsyncStream<[UInt8]>) async throws -> String {
        var answer = ""
        for try await result in bytes.serverSentEvents.frames(ServerFrame.self) {  // bytes: AsyncSequence of [UInt8] or Data chunks
            if case .decoded(.token(let token), _) = result { answer += token.content }
        }
        return answer
    }
}
