/// Revocation, through the operator's command.
enum RevocationCases {
    static let all: [ConformanceCase] = [revokedTokenRefused]

    static let revokedTokenRefused = ConformanceCase(
        "revocation.revoked-token-refused", group: "revocation",
        rule: ContractRule(
            ["errors", "token_revoked"],
            "a revoked token gets auth_result token_revoked (then close 1008) and 403 token_revoked over HTTP"),
        action: "pair a device, revoke it with --operator-cmd, then auth and upload with its token", requires: [.operatorCommand]
    ) { context in
        let device = try await context.pair()
        let (chat, _) = try await context.connect(device)
        await chat.disconnect()
        try await context.runOperatorCommand(for: device)
        let again = try await context.open("the revoked device's socket")
        try await again.send(Frames.auth(device))
        let outcome = try await AuthenticationCases.expectAuthFailure(on: again, reason: "token_revoked")
        let upload = try await TransferCases.http(context).upload(TransferCases.bytes, mimeType: "image/png", token: device.token)
        try require(upload.status == 403 && upload.errorCode == "token_revoked", expected: "POST /upload: 403 token_revoked", got: upload.words)
        return "\(outcome); upload 403 token_revoked"
    }
}
