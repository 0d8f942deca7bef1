/// Chat: the ack and the echo to every device, accounts kept apart, retried ids, the stream of
/// an answer, user typing.
enum ChatCases {
    static let all: [ConformanceCase] = [
        ackThenEchoToEveryDevice, otherAccountsSeeNothing, retriedIDIsOneEvent, retryAfterReconnectIsOneEvent, retryWithOtherContentRefused,
        streamGrowsThenEnds, userTypingNotRelayed,
    ]

    static let ackThenEchoToEveryDevice = ConformanceCase(
        "chat.ack-then-echo-to-every-device", group: "chat",
        rule: ContractRule(
            ["messages", "client", "message"],
            "the provider answers a message with ack and then echoes it (role user, the sender's deviceId, final) to every device of the account"),
        action: "a message from device A while device B of the account is connected"
    ) { context in
        let first = try await context.pair()
        let second = try await context.pair(into: first.userID)
        let (a, _) = try await context.connect(first, name: "device A")
        let (b, _) = try await context.connect(second, name: "device B")
        let sent = try await a.sendAndReadAnswer("hello from A", from: first)
        try require(sent.ack.sequence < sent.echo.sequence, expected: "the ack before the echo", got: "the echo first")
        try require(sent.echo.bool("streaming") == false, expected: "the echo final (streaming false)", got: sent.echo.description)
        let echo = try await b.readEcho(of: "hello from A", from: first)
        try require(echo.string("id") == sent.echo.string("id"), expected: "the same event id on B", got: echo.description)
        return "ack, then the echo on A; the same echo on B"
    }

    static let otherAccountsSeeNothing = ConformanceCase(
        "chat.other-accounts-see-nothing", group: "chat",
        rule: ContractRule(
            ["messages", "server", "message"], "a chat event goes to the devices of its account only"),
        action: "a message from an account while a device of another account is connected"
    ) { context in
        let sender = try await context.pair()
        let stranger = try await context.pair()
        let (other, _) = try await context.connect(stranger, name: "another account's device")
        let (chat, _) = try await context.connect(sender)
        let sent = try await chat.sendAndReadAnswer("for my account only", from: sender)
        let seen = try await other.settle()
        let leaked = seen.filter { $0.type == "message" || $0.type == "typing" || $0.type == "ack" }
        try require(leaked.isEmpty, expected: "nothing on the other account's socket", got: leaked.map(\.description).joined(separator: ", "))
        return "\(sent.answer.count + 2) frames to the sender; none to the other account"
    }

    static let retriedIDIsOneEvent = ConformanceCase(
        "chat.retried-id-is-one-event", group: "chat",
        rule: ContractRule(
            ["session", "uniqueness", "client_message_retry"],
            "a message resent with its id and content is a retry: it is acknowledged again, and makes no second event and no second answer"),
        action: "a message, its answer read, then the same frame again"
    ) { context in
        let device = try await context.pair()
        let (chat, _) = try await context.connect(device)
        let sent = try await chat.sendAndReadAnswer("say it once", from: device)
        try await chat.send(Frames.message(id: sent.id, content: "say it once"))
        try await chat.expect(type: "ack", "an ack of the retry") { $0.string("id") == sent.id }
        let seen = try await chat.settle()
        let extra = seen.filter { $0.type == "message" }
        try require(extra.isEmpty, expected: "no second echo or answer", got: extra.map(\.description).joined(separator: ", "))
        return "ack again; no second event"
    }

    static let retryAfterReconnectIsOneEvent = ConformanceCase(
        "chat.retry-after-reconnect-is-one-event", group: "chat",
        rule: ContractRule(
            ["messages", "client", "message"],
            "retries after a reconnect reuse the id: acknowledged, with no second event and no second answer (ids belong to the device)"),
        action: "a message, its answer read, then the same frame on a new socket of the device"
    ) { context in
        let device = try await context.pair()
        let (chat, _) = try await context.connect(device)
        let sent = try await chat.sendAndReadAnswer("say it once, twice connected", from: device)
        await chat.disconnect()
        let (again, _) = try await context.connect(device, lastMessageId: sent.cursor, name: "the device's new socket")
        try await again.send(Frames.message(id: sent.id, content: "say it once, twice connected"))
        try await again.expect(type: "ack", "an ack of the retry") { $0.string("id") == sent.id }
        let seen = try await again.settle()
        let extra = seen.filter { $0.type == "message" }
        try require(extra.isEmpty, expected: "no second echo or answer", got: extra.map(\.description).joined(separator: ", "))
        return "ack again on the new socket; no second event"
    }

    static let retryWithOtherContentRefused = ConformanceCase(
        "chat.retry-with-other-content-refused", group: "chat",
        rule: ContractRule(
            ["session", "uniqueness", "client_message_retry"],
            "a client message id resent with different content is error invalid_message (naming that id, if it names one); the socket stays open"),
        action: "a message, then its id with other content"
    ) { context in
        let device = try await context.pair()
        let (chat, _) = try await context.connect(device)
        let sent = try await chat.sendAndReadAnswer("the first content", from: device)
        try await chat.send(Frames.message(id: sent.id, content: "other content"))
        let error = try await chat.expect("error invalid_message") { $0.type == "error" || $0.type == "ack" }
        // The contract names no messageId for this error; one that is there names the message.
        try require(
            error.isError("invalid_message") && [nil, sent.id].contains(error.string("messageId")),
            expected: "error invalid_message (naming \(sent.id), if it names one)", got: error.description)
        let seen = try await chat.settle()
        try require(
            !seen.contains { $0.string("content") == "other content" }, expected: "no echo of the other content",
            got: seen.map(\.description).joined(separator: ", "))
        return error.description
    }

    static let streamGrowsThenEnds = ConformanceCase(
        "chat.stream-grows-then-ends", group: "chat",
        rule: ContractRule(
            ["session", "uniqueness", "server_event_stream"],
            "an answer's snapshots keep one id and role, each extends the text before, one final (streaming false) ends it, and nothing follows it"),
        action: "a message of several words, its answer read to the end"
    ) { context in
        let device = try await context.pair()
        let (chat, _) = try await context.connect(device)
        let sent = try await chat.sendAndReadAnswer("one two three four five six seven", from: device)
        guard let final = sent.answer.last, final.type == "message", let id = final.string("id") else {
            return "the assistant failed (\(sent.answer.last?.description ?? "?")): nothing to check"
        }
        var before = ""
        for frame in sent.answer {
            let text = frame.string("content") ?? ""
            try require(
                frame.string("role") == "assistant" && text.hasPrefix(before), expected: "role assistant, content extending '\(before)'",
                got: frame.description)
            before = text
        }
        try require(
            sent.answer.dropLast().allSatisfy { $0.bool("streaming") == true } && final.bool("streaming") == false,
            expected: "snapshots streaming true, then one final", got: sent.answer.map(\.description).joined(separator: ", "))
        let seen = try await chat.settle()
        let after = seen.filter { $0.string("id") == id && $0.sequence > final.sequence }
        try require(after.isEmpty, expected: "no frame of \(id) after its final", got: after.map(\.description).joined(separator: ", "))
        return "\(sent.answer.count) frames, growing, then the final"
    }

    static let userTypingNotRelayed = ConformanceCase(
        "chat.user-typing-not-relayed", group: "chat",
        rule: ContractRule(
            ["messages", "client", "typing"], "user typing is accepted without an answer and not relayed to the account's other devices in v1"),
        action: "typing from device A while device B of the account is connected"
    ) { context in
        let first = try await context.pair()
        let second = try await context.pair(into: first.userID)
        let (a, _) = try await context.connect(first, name: "device A")
        let (b, _) = try await context.connect(second, name: "device B")
        try await a.send(Frames.typing(true))
        let answered = try await a.settle()
        try require(answered.isEmpty, expected: "no answer to typing", got: answered.map(\.description).joined(separator: ", "))
        let seen = try await b.settle()
        let relayed = seen.filter { $0.type == "typing" && $0.string("role") != "assistant" }
        try require(relayed.isEmpty, expected: "no user typing on B", got: relayed.map(\.description).joined(separator: ", "))
        return "no answer; nothing on B"
    }
}
