import Foundation

/// Every rate limit the contract sets per device: messages, typing, auth, pairing and oversize
/// frames. Each runs as a device of its own, so no other case's frames count.
enum RateLimitCases {
    static let all: [ConformanceCase] = [messages, typing, authentication, pairing, oversize]

    static let messages = ConformanceCase(
        "rate-limit.message", group: "rate-limit",
        rule: ContractRule(["rateLimits", "message"], "a sixth message within a second is rate_limited; the socket stays open"),
        action: "six messages at once"
    ) { context in
        let device = try await context.pair()
        let (chat, _) = try await context.connect(device)
        let ids = (1...6).map { Frames.messageID("burst\($0)") }
        for (index, id) in ids.enumerated() { try await chat.send(Frames.message(id: id, content: "burst \(index + 1)")) }
        for id in ids.prefix(5) { try await chat.expect(type: "ack", "the ack of \(id)") { $0.string("id") == id } }
        let limited = try await chat.expect("error rate_limited for the sixth") {
            $0.type == "error" || ($0.type == "ack" && $0.string("id") == ids[5])
        }
        try require(limited.isError("rate_limited"), expected: "error rate_limited", got: limited.description)
        try await chat.settle()
        return "five acks, then rate_limited; the socket open"
    }

    static let typing = ConformanceCase(
        "rate-limit.typing", group: "rate-limit",
        rule: ContractRule(["rateLimits", "typing"], "a third typing within a second is rate_limited; the socket stays open"),
        action: "three typing frames at once"
    ) { context in
        let device = try await context.pair()
        let (chat, _) = try await context.connect(device)
        for _ in 1...3 { try await chat.send(Frames.typing(true)) }
        let seen = try await chat.settle()
        let limited = seen.filter { $0.isError("rate_limited") }
        try require(
            limited.count == 1, expected: "one error rate_limited", got: seen.isEmpty ? "no answer" : seen.map(\.description).joined(separator: ", "))
        return "rate_limited for the third; the socket open"
    }

    static let authentication = ConformanceCase(
        "rate-limit.auth", group: "rate-limit",
        rule: ContractRule(
            ["rateLimits", "auth"],
            "a sixth auth of one device within a minute is rate_limited (error rate_limited, or auth_result rate_limited), and the socket closes"),
        action: "six auth frames with the device's own token, each on a socket of its own"
    ) { context in
        // The device's own attempts: a token that does not verify proves nothing about the device
        // it names, and a provider may count its failures apart (so a stranger cannot lock it out).
        let device = try await context.pair()
        for attempt in 1...5 {
            let (chat, _) = try await context.connect(device, name: "auth attempt \(attempt)")
            await chat.disconnect()
        }
        let sixth = try await context.open("auth attempt 6")
        try await sixth.send(Frames.auth(device))
        let answer = try await sixth.expect("error rate_limited") { $0.type == "error" || $0.type == "auth_result" }
        try require(
            answer.isError("rate_limited") || (answer.type == "auth_result" && answer.string("reason") == "rate_limited"),
            expected: "error rate_limited (or auth_result success false, reason rate_limited)", got: answer.description)
        _ = try await sixth.expectClose("after rate_limited on auth")
        return "five auth_result successes, then \(answer.description) and close"
    }

    static let pairing = ConformanceCase(
        "rate-limit.pair-request", group: "rate-limit",
        rule: ContractRule(
            ["rateLimits", "pair_request"], "a sixth pair_request for one device within a minute is rate_limited, and the socket closes"),
        action: "six pair_request frames for one device, each answered (the admin denies) before the next"
    ) { context in
        let deviceID = UUID().uuidString.lowercased()
        let admin = try await context.adminConnection()
        for attempt in 1...5 {
            let pairing = try await context.open("pairing attempt \(attempt)")
            try await pairing.send(Frames.pairRequest(deviceID: deviceID))
            // A denied device may be refused at once (pair_rejected) or asked about again.
            let clock = ContinuousClock()
            let deadline = clock.now + context.timeout
            var answered = false
            while !answered, clock.now < deadline {
                if let request = try? await admin.expect(
                    type: "pair_approval_request", within: .milliseconds(100), where: { $0.string("deviceId") == deviceID })
                {
                    _ = request
                    try await admin.send(Frames.decision(deviceID: deviceID, approve: false))
                }
                if (try? await pairing.expect(type: "pair_result", within: .milliseconds(100))) != nil { answered = true }
            }
            try require(answered, expected: "pair_result for attempt \(attempt) of 5 allowed", got: "none within \(context.timeout)")
            await pairing.disconnect()
        }
        let sixth = try await context.open("pairing attempt 6")
        try await sixth.send(Frames.pairRequest(deviceID: deviceID))
        let answer = try await sixth.expect("error rate_limited") { $0.type == "error" || $0.type == "pair_result" }
        try require(answer.isError("rate_limited"), expected: "error rate_limited", got: answer.description)
        _ = try await sixth.expectClose("after rate_limited on pair_request")
        return "five pair_results, then rate_limited and close"
    }

    static let oversize = ConformanceCase(
        "rate-limit.oversize", group: "rate-limit",
        rule: ContractRule(
            ["rateLimits", "oversize"], "two oversize messages within 60 s are payload_too_large; the third also closes the socket (1008)"),
        action: "three messages of 70,000 bytes of content (over the 65,536 allowed, within the frame limit)"
    ) { context in
        let device = try await context.pair()
        let (chat, _) = try await context.connect(device)
        let content = String(repeating: "x", count: 70_000)
        for attempt in 1...2 {
            try await chat.send(Frames.message(id: Frames.messageID("big\(attempt)"), content: content))
            let answer = try await chat.expect("error payload_too_large (\(attempt) of 2 allowed)") { $0.type == "error" || $0.type == "ack" }
            try require(answer.isError("payload_too_large"), expected: "error payload_too_large", got: answer.description)
        }
        try await chat.settle()
        try await chat.send(Frames.message(id: Frames.messageID("big3"), content: content))
        let third = try await chat.expect("error payload_too_large for the third") { $0.type == "error" || $0.type == "ack" }
        try require(third.isError("payload_too_large"), expected: "error payload_too_large", got: third.description)
        try await chat.expectClose("after the third oversize frame", code: 1008)
        return "payload_too_large twice, open; the third: payload_too_large, close 1008"
    }
}
