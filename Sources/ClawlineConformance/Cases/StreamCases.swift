import WireRuntime

/// What becomes of an assistant's stream when the socket of the device that sent the message
/// goes: a takeover moves it to the new socket; a close without one cancels it.
///
/// Both need the stream to be still active when the socket goes, so the message asks for a long
/// answer and the socket goes at the answer's first snapshot. They run only for a provider whose
/// assistant streams for a while (`--streaming-assistant`; the reference provider streams with
/// `clawline-server serve --assistant-pace-ms 20`); an answer seen final at once skips the case.
enum StreamCases {
    static let all: [ConformanceCase] = [takeoverMovesTheStream, closeCancelsTheStream]

    /// Many words, so the answer streams in many snapshots.
    static let longContent = Array(repeating: "stream", count: 64).joined(separator: " ")

    static let takeoverMovesTheStream = ConformanceCase(
        "session.takeover-moves-the-stream", group: "session",
        rule: ContractRule(
            ["messages", "server", "message"],
            "a takeover moves a stream: its final (or its server_error naming the message) reaches the device's new socket"),
        action: "a long message; at the answer's first snapshot the device authenticates on a second socket",
        requires: [.streamingAssistant]
    ) { context in
        let device = try await context.pair()
        let (old, _) = try await context.connect(device, name: "the first socket")
        let (id, streamID) = try await startStream(on: old, from: device)
        let (new, _) = try await context.connect(device, name: "the second socket")
        let end = try await new.expect("the final of \(streamID), or error server_error naming \(id), on the second socket") {
            ($0.string("id") == streamID && $0.bool("streaming") == false) || ($0.isError("server_error") && $0.string("messageId") == id)
        }
        return "the stream went on on the second socket: \(end)"
    }

    static let closeCancelsTheStream = ConformanceCase(
        "session.close-cancels-the-stream", group: "session",
        rule: ContractRule(
            ["messages", "server", "message"],
            "a close without a takeover cancels the stream (\"no resume occurs\"): its final never comes, "
                + "live to the account's other devices or in a later replay"),
        action: "a long message from device A; A's socket closes at the answer's first snapshot while device B of the account "
            + "watches for the suite's timeout; then A reconnects and replays",
        requires: [.streamingAssistant]
    ) { context in
        let device = try await context.pair()
        let sibling = try await context.pair(into: device.userID)
        let (watcher, _) = try await context.connect(sibling, name: "device B")
        let (sender, _) = try await context.connect(device, name: "device A")
        let (_, streamID) = try await startStream(on: sender, from: device)
        await sender.disconnect()
        let isFinal: @Sendable (ReceivedFrame) -> Bool = { $0.string("id") == streamID && $0.bool("streaming") == false }
        // The final must not come: waiting the suite's timeout for it is the check.
        if let final = try? await watcher.expect("no final of \(streamID)", where: isFinal) {
            throw ContractBreach(expected: "no final of \(streamID) after its socket closed without a takeover", got: final.description)
        }
        let (again, result) = try await context.connect(device, name: "device A again")
        let replayed = try await readReplay(on: again, count: result.members["replayCount"]?.integerValue ?? 0)
        try require(
            !replayed.contains(where: isFinal), expected: "no final of \(streamID) in the replay",
            got: replayed.map(\.description).joined(separator: ", "))
        return "no final of \(streamID) within \(context.timeout) on device B, and none in A's replay of \(replayed.count)"
    }

    /// Sends a long message on `socket` and reads up to its answer's first snapshot; returns the
    /// client message id and the stream's id. Skips the case when the answer is final at once.
    static func startStream(on socket: ClawlineConnection, from device: PairedDevice) async throws -> (id: String, streamID: String) {
        let id = Frames.messageID("stream")
        try await socket.send(Frames.message(id: id, content: longContent))
        _ = try await socket.expect(type: "ack", "ack of \(id)") { $0.string("id") == id }
        let echo = try await socket.readEcho(of: longContent, from: device)
        let first = try await socket.expect("the answer's first frame (a message with role assistant)") {
            $0.sequence > echo.sequence && $0.type == "message" && $0.string("role") == "assistant"
        }
        guard first.bool("streaming") == true, let streamID = first.string("id") else {
            throw ConformanceSkip("the answer to a long message was final at once, so its stream could not be caught while active")
        }
        // A final already read means the stream ended before the socket could go.
        if await socket.untaken.contains(where: { $0.string("id") == streamID && $0.bool("streaming") == false }) {
            throw ConformanceSkip("the answer ended as its first snapshot was read, so its stream could not be caught while active")
        }
        return (id, streamID)
    }

    /// The `count` replayed frames after an `auth_result`.
    static func readReplay(on socket: ClawlineConnection, count: Int) async throws -> [ReceivedFrame] {
        var frames: [ReceivedFrame] = []
        for index in 0..<count { frames.append(try await socket.expect(type: "message", "replayed message \(index + 1) of \(count)")) }
        return frames
    }
}
