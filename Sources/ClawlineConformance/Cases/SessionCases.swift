/// Connections of one device and of one account over time: takeover, replay after a cursor,
/// the replay before live frames, an unknown cursor.
enum SessionCases {
    static let all: [ConformanceCase] = [takeover, failedAuthKeepsTheOldSocket, replayAfterTheCursor, replayBeforeLive, unknownCursorResetsHistory]

    static let takeover = ConformanceCase(
        "session.takeover", group: "session",
        rule: ContractRule(
            ["errors", "session_replaced"],
            "when another connection authenticates with the same deviceId, the old socket gets error session_replaced and closes with 1000"),
        action: "auth on a second socket of an authenticated device"
    ) { context in
        let device = try await context.pair()
        let (old, _) = try await context.connect(device, name: "the first socket")
        _ = try await context.connect(device, name: "the second socket")
        let error = try await old.expect(type: "error", "error session_replaced")
        try require(error.isError("session_replaced"), expected: "error session_replaced", got: error.description)
        try await old.expectClose("after session_replaced", code: 1000)
        return "the new socket authenticated; the old one: session_replaced, close 1000"
    }

    static let failedAuthKeepsTheOldSocket = ConformanceCase(
        "session.failed-auth-keeps-the-old-socket", group: "session",
        rule: ContractRule(["flows", "reconnect_and_takeover"], "if the new connection fails auth, the old one stays"),
        action: "auth with a wrong token for a device that has a socket open"
    ) { context in
        let device = try await context.pair()
        let (old, _) = try await context.connect(device, name: "the first socket")
        let second = try await context.open("the second socket")
        try await second.send(Frames.auth(deviceID: device.deviceID, token: "not-\(device.token.prefix(8))"))
        let result = try await second.expect(type: "auth_result")
        try require(result.bool("success") == false, expected: "auth_result success false", got: result.description)
        let seen = try await old.settle()
        try require(
            !seen.contains { $0.type == "error" }, expected: "no error on the first socket",
            got: seen.map(\.description).joined(separator: ", "))
        return "auth_result failure on the second socket; the first answers and stays open"
    }

    static let replayAfterTheCursor = ConformanceCase(
        "session.replay-after-the-cursor", group: "session",
        rule: ContractRule(
            ["messages", "server", "auth_result"],
            "after a successful auth_result the provider replays, in order, the stored (final) events after the device's lastMessageId"),
        action: "device A reads a message's answer and leaves; B sends two; A comes back with its cursor"
    ) { context in
        let (first, cursor, second, b) = try await deviceAwayAfterACursor(context)
        var missed: [String] = []
        for text in ["first while A is away", "second while A is away"] {
            missed += try await b.sendAndReadAnswer(text, from: second).storedEventIDs
        }
        let (back, result) = try await context.connect(first, lastMessageId: cursor, name: "device A, back")
        try require(
            result.members["replayCount"]?.integerValue == missed.count, expected: "replayCount \(missed.count) (the events after the cursor)",
            got: result.description)
        var replayed: [ReceivedFrame] = []
        for id in missed {
            replayed.append(try await back.expect(type: "message", "the replay of \(id)") { $0.string("id") == id })
        }
        let inOrder = zip(replayed, replayed.dropFirst()).allSatisfy { $0.sequence < $1.sequence }
        try require(
            inOrder && replayed.allSatisfy { $0.bool("streaming") == false }, expected: "the missed events, final, in order: \(missed)",
            got: replayed.map(\.description).joined(separator: ", "))
        return "replayCount \(missed.count); \(missed.count) finals replayed in order"
    }

    static let replayBeforeLive = ConformanceCase(
        "session.replay-before-live", group: "session",
        rule: ContractRule(
            ["session", "runs", "replay"],
            "the replayCount frames right after auth_result are the replayed finals; no live frame comes before the replay is over, "
                + "and every event reaches the device once as a final"),
        action: "B sends while A is away, then again while A authenticates with its cursor"
    ) { context in
        let (first, cursor, second, b) = try await deviceAwayAfterACursor(context)
        var events: [String] = []
        // Four messages in all from B: under the message limit (5 a second).
        for index in 1...2 { events += try await b.sendAndReadAnswer("away \(index)", from: second).storedEventIDs }
        let back = try await context.open("device A, back")
        try await back.send(Frames.auth(first, lastMessageId: cursor))
        let live = (1...2).map { "live \($0)" }
        var liveIDs: [String] = []
        for text in live { try await b.send(Frames.message(id: Frames.messageID("live"), content: text)) }
        for text in live {
            let echo = try await b.readEcho(of: text, from: second)
            liveIDs += [echo.string("id")].compactMap { $0 }
            if let final = try await b.readAnswer(after: echo, naming: "").last, final.type == "message", let id = final.string("id") {
                liveIDs.append(id)
            }
        }
        let result = try await back.expect(type: "auth_result")
        let count = result.members["replayCount"]?.integerValue ?? -1
        for id in events + liveIDs {
            try await back.expect(type: "message", "\(id) as a final") { $0.string("id") == id && $0.bool("streaming") == false }
        }
        try await back.settle()
        let after = await back.received.filter { $0.sequence > result.sequence }
        let run = after.prefix(count)
        try require(
            count >= events.count && run.count == count && run.allSatisfy { $0.type == "message" && $0.bool("streaming") == false },
            expected: "replayCount ≥ \(events.count), then that many final messages before any live frame",
            got: "replayCount \(count), then \(after.prefix(count + 1).map(\.description).joined(separator: ", "))")
        let finals = after.filter { $0.type == "message" && $0.bool("streaming") == false }.compactMap { $0.string("id") }
        try require(
            Set(finals).count == finals.count, expected: "each event once as a final", got: "finals \(finals) (one repeats)")
        return "replayCount \(count), the replay first, then the live events; each final once"
    }

    /// Two devices of one account: A reads a message's answer and leaves (with its cursor), and
    /// B is connected.
    static func deviceAwayAfterACursor(
        _ context: ConformanceContext
    ) async throws -> (
        away: PairedDevice, cursor: String?, other: PairedDevice, otherSocket: ClawlineConnection
    ) {
        let first = try await context.pair()
        let second = try await context.pair(into: first.userID)
        let (a, _) = try await context.connect(first, name: "device A")
        let cursor = try await a.sendAndReadAnswer("before the cursor", from: first).cursor
        await a.disconnect()
        let (b, _) = try await context.connect(second, name: "device B")
        return (first, cursor, second, b)
    }

    static let unknownCursorResetsHistory = ConformanceCase(
        "session.unknown-cursor-resets-history", group: "session",
        rule: ContractRule(
            ["messages", "client", "auth", "fields", "lastMessageId"],
            "an id the provider does not know is answered with the newest events and historyReset true"),
        action: "auth with a lastMessageId no event has, on an account with events"
    ) { context in
        let device = try await context.pair()
        let (chat, _) = try await context.connect(device)
        _ = try await chat.sendAndReadAnswer("an event to replay", from: device)
        await chat.disconnect()
        let (back, result) = try await context.connect(device, lastMessageId: "s_00000000-0000-4000-8000-000000000000", name: "device, back")
        try require(
            result.bool("historyReset") == true && (result.members["replayCount"]?.integerValue ?? 0) > 0,
            expected: "auth_result historyReset true with the newest events replayed", got: result.description)
        try await back.settle()
        return result.description
    }
}
