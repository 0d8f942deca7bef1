/// Authentication: what a token that is not the device's gets.
enum AuthenticationCases {
    static let all: [ConformanceCase] = [wrongTokenFails, anotherDevicesTokenFails]

    static let wrongTokenFails = ConformanceCase(
        "auth.wrong-token-fails", group: "auth",
        rule: ContractRule(
            ["messages", "client", "auth"], "a malformed or foreign token gets auth_result success false, auth_failed, and the socket closes (1008)"),
        action: "auth for a paired device with a token that is not one"
    ) { context in
        let device = try await context.pair()
        let chat = try await context.open("chat socket")
        try await chat.send(Frames.auth(deviceID: device.deviceID, token: "not-a-token"))
        return try await expectAuthFailure(on: chat, reason: "auth_failed")
    }

    static let anotherDevicesTokenFails = ConformanceCase(
        "auth.another-devices-token-fails", group: "auth",
        rule: ContractRule(["errors", "auth_failed"], "a deviceId other than the token's is auth_failed, and the socket closes (1008)"),
        action: "auth with one device's id and another device's token"
    ) { context in
        let first = try await context.pair()
        let second = try await context.pair()
        let chat = try await context.open("chat socket")
        try await chat.send(Frames.auth(deviceID: second.deviceID, token: first.token))
        return try await expectAuthFailure(on: chat, reason: "auth_failed")
    }

    /// Reads an `auth_result` failure with `reason`, then the close (1008).
    static func expectAuthFailure(on chat: ClawlineConnection, reason: String) async throws -> String {
        let result = try await chat.expect(type: "auth_result")
        try require(
            result.bool("success") == false && result.string("reason") == reason, expected: "auth_result success false, reason \(reason)",
            got: result.description)
        try await chat.expectClose("after a failed auth_result", code: 1008)
        return "auth_result \(reason), then close 1008"
    }
}
