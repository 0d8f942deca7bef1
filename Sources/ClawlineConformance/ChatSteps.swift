import WireRuntime

/// A message sent and what answered it on the sender's socket.
public struct AnsweredMessage: Sendable {
    /// The client message id.
    public var id: String
    /// The `ack`.
    public var ack: ReceivedFrame
    /// The echo (`role: user`).
    public var echo: ReceivedFrame
    /// The assistant's frames for it, in order, the final last (or the `server_error` naming it).
    public var answer: [ReceivedFrame]

    /// The server event ids the account's devices store for it: the echo's and the final's.
    public var storedEventIDs: [String] {
        [echo.string("id")].compactMap { $0 } + (answer.last.flatMap { $0.type == "message" ? $0.string("id") : nil }.map { [$0] } ?? [])
    }

    /// The last stored event id (the cursor a device that read everything sends).
    public var cursor: String? { storedEventIDs.last }
}

extension ClawlineConnection {
    /// Sends a message and reads its `ack`, its echo and the assistant's answer to its end.
    ///
    /// The contract: the provider answers a `message` with `ack`, echoes it to the account as a
    /// `message` with `role: user`, and the assistant's answer follows as snapshots and one final
    /// (`streaming: false`), or an `error` `server_error` naming the message.
    public func sendAndReadAnswer(
        _ content: String, id: String = Frames.messageID("conformance"), from device: PairedDevice
    )
        async throws -> AnsweredMessage
    {
        try await send(Frames.message(id: id, content: content))
        let ack = try await expect(type: "ack", "ack of \(id)") { $0.string("id") == id }
        let echo = try await readEcho(of: content, from: device)
        let answer = try await readAnswer(after: echo, naming: id)
        return AnsweredMessage(id: id, ack: ack, echo: echo, answer: answer)
    }

    /// The echo of `content` from `device`.
    public func readEcho(of content: String, from device: PairedDevice) async throws -> ReceivedFrame {
        try await expect(type: "message", "the echo of '\(content.prefix(40))' (role user)") {
            $0.string("role") == "user" && $0.string("content") == content && $0.string("deviceId") == device.deviceID
        }
    }

    /// The assistant's frames after `echo` to its final, or the `server_error` naming `id`.
    public func readAnswer(after echo: ReceivedFrame, naming id: String) async throws -> [ReceivedFrame] {
        let first = try await expect("the assistant's answer to \(id) (a message with role assistant, or error server_error naming it)") {
            $0.sequence > echo.sequence
                && (($0.type == "message" && $0.string("role") == "assistant") || ($0.isError("server_error") && $0.string("messageId") == id))
        }
        guard first.type == "message", let answerID = first.string("id") else { return [first] }
        var frames = [first]
        while frames.last?.bool("streaming") != false {
            frames.append(
                try await expect(type: "message", "the rest of the answer \(answerID), to its final (streaming false)") {
                    $0.string("id") == answerID
                })
        }
        return frames
    }
}
