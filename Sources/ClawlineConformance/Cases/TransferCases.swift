import Foundation
import WireRuntime

/// Uploads and downloads across accounts.
enum TransferCases {
    static let all: [ConformanceCase] = [downloadInTheAccount, otherAccountsCannotDownload, otherAccountsCannotAttach, uploadNeedsAToken]

    static let bytes = Data((0..<1500).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    static func http(_ context: ConformanceContext) -> ProviderHTTP {
        ProviderHTTP(base: context.options.httpBase, timeout: context.timeout, sendHTTP: context.options.sendHTTP)
    }

    /// Uploads ``bytes`` as `device` and returns the asset id.
    static func upload(as device: PairedDevice, _ context: ConformanceContext) async throws -> String {
        let answer = try await http(context).upload(bytes, mimeType: "image/png", token: device.token)
        let body = (try? JSONParser.parse([UInt8](answer.body)))?.objectValue
        guard answer.status == 200, let assetID = body?["assetId"]?.stringValue else {
            throw ContractBreach(expected: "POST /upload: 200 with an assetId", got: answer.words)
        }
        try require(
            body?["size"]?.integerValue == bytes.count, expected: "size \(bytes.count) in the upload's answer", got: answer.words)
        return assetID
    }

    static let downloadInTheAccount = ConformanceCase(
        "transfer.download-in-the-account", group: "transfer",
        rule: ContractRule(
            ["endpoints", "download"],
            "a device downloads an upload of its account: the bytes and the stored MIME type "
                + "(X-Content-Type-Options nosniff is a provider limit: a warning when absent)"),
        action: "POST /upload from device A, GET /download from device B of the account"
    ) { context in
        let first = try await context.pair()
        let second = try await context.pair(into: first.userID)
        let assetID = try await upload(as: first, context)
        let answer = try await http(context).download(assetID, token: second.token)
        try require(answer.status == 200 && answer.body == bytes, expected: "200 with the \(bytes.count) bytes uploaded", got: answer.words)
        let contentType = answer.header("Content-Type") ?? "none"
        try require(contentType.hasPrefix("image/png"), expected: "Content-Type image/png", got: "Content-Type \(contentType)")
        // The spec states nosniff as the reference provider's hardening, not as the contract's rule.
        let sniffing = answer.header("X-Content-Type-Options") ?? "none"
        if sniffing != "nosniff" { await context.warn("X-Content-Type-Options nosniff on downloads (got \(sniffing))") }
        return "200, the bytes, image/png, X-Content-Type-Options \(sniffing)"
    }

    static let otherAccountsCannotDownload = ConformanceCase(
        "transfer.other-accounts-cannot-download", group: "transfer",
        rule: ContractRule(["endpoints", "download"], "an upload of another account is 404 asset_not_found"),
        action: "POST /upload from one account, GET /download from another"
    ) { context in
        let owner = try await context.pair()
        let stranger = try await context.pair()
        let assetID = try await upload(as: owner, context)
        let answer = try await http(context).download(assetID, token: stranger.token)
        try require(answer.status == 404 && answer.errorCode == "asset_not_found", expected: "404 asset_not_found", got: answer.words)
        return "404 asset_not_found"
    }

    static let otherAccountsCannotAttach = ConformanceCase(
        "transfer.other-accounts-cannot-attach", group: "transfer",
        rule: ContractRule(
            ["errors", "asset_not_found"], "an attachment naming an asset of another account is asset_not_found, and the message is not echoed"),
        action: "a message with an asset attachment of another account's upload"
    ) { context in
        let owner = try await context.pair()
        let stranger = try await context.pair()
        let assetID = try await upload(as: owner, context)
        let (chat, _) = try await context.connect(stranger)
        let id = Frames.messageID("foreign-asset")
        try await chat.send(Frames.message(id: id, content: "not mine", attachments: [["type": "asset", "assetId": .string(assetID)]]))
        let answer = try await chat.expect("error asset_not_found") { $0.type == "error" || ($0.type == "ack" && $0.string("id") == id) }
        try require(answer.isError("asset_not_found"), expected: "error asset_not_found", got: answer.description)
        let seen = try await chat.settle()
        try require(
            !seen.contains { $0.type == "message" && $0.string("content") == "not mine" }, expected: "no echo of the message",
            got: seen.map(\.description).joined(separator: ", "))
        return answer.description
    }

    static let uploadNeedsAToken = ConformanceCase(
        "transfer.upload-needs-a-token", group: "transfer",
        rule: ContractRule(["errors", "auth_failed"], "an upload without a valid token is 401 auth_failed"),
        action: "POST /upload without Authorization, then with a token that is not one"
    ) { context in
        for token in [nil, "not-a-token"] as [String?] {
            let answer = try await http(context).upload(bytes, mimeType: "image/png", token: token)
            try require(answer.status == 401 && answer.errorCode == "auth_failed", expected: "401 auth_failed", got: answer.words)
        }
        return "401 auth_failed both times"
    }
}
