import Foundation
import WireRuntime

/// Pairing and admin approval: the first admin, approval, denial, the first decision winning,
/// requests sent again to admins, only admins deciding, no re-pairing.
enum PairingCases {
    static let all: [ConformanceCase] = [
        firstDeviceIsAdmin, approvalRequestReachesAdmins, approvedDeviceJoinsTheAccount, deniedDeviceIsToldAndClosed, firstDecisionWins,
        pendingRequestsSentAgain, onlyAdminsDecide, pairedDeviceCannotPairAgain,
    ]

    static let firstDeviceIsAdmin = ConformanceCase(
        "pairing.first-device-is-admin", group: "pairing",
        rule: ContractRule(
            ["messages", "client", "pair_request"], "the first device ever to pair becomes an admin and is approved at once"),
        action: "pair_request on a provider with no devices, then auth and a second pairing it approves", requires: [.freshProvider]
    ) { context in
        guard let (pairResult, authResult) = await context.firstPairing else {
            throw ConformanceSetupError("the suite did not pair the first device")
        }
        try require(
            pairResult.bool("success") == true && pairResult.string("token")?.isEmpty == false,
            expected: "pair_result success with a token, without an admin's decision", got: pairResult.description)
        try require(authResult.bool("success") == true, expected: "auth_result success for the first device", got: authResult.description)
        try require(authResult.bool("isAdmin") != false, expected: "isAdmin true or absent", got: authResult.description)
        _ = try await context.pair()
        return "pair_result success at once; auth_result success; the device approved a later pairing"
    }

    static let approvalRequestReachesAdmins = ConformanceCase(
        "pairing.approval-request-reaches-admins", group: "pairing",
        rule: ContractRule(
            ["messages", "server", "pair_approval_request"],
            "an admin's chat connection gets pair_approval_request with the pending device's id, claimed name and device info"),
        action: "pair_request with a claimedName, the admin connected"
    ) { context in
        // The approval request arriving is this case's rule, not a setup step: its absence fails the rule.
        let pending: ConformanceContext.PendingPairing
        do {
            pending = try await context.requestPairing(name: "Conformance Kaywood")
        } catch let error as ConformanceSetupError {
            throw ContractBreach(expected: "pair_approval_request for the pending device on the admin's socket", got: error.description)
        }
        let request = pending.approvalRequest
        let info = request.members["deviceInfo"]?.objectValue
        try require(
            request.string("claimedName") == "Conformance Kaywood" && info?["platform"] == "clawline-conformance" && info?["model"] == "suite",
            expected: "claimedName 'Conformance Kaywood' and the deviceInfo sent", got: request.description)
        try await pending.admin.send(Frames.decision(deviceID: pending.deviceID, approve: false))
        try await pending.socket.expect(type: "pair_result")
        return request.description
    }

    static let approvedDeviceJoinsTheAccount = ConformanceCase(
        "pairing.approved-device-joins-the-account", group: "pairing",
        rule: ContractRule(
            ["messages", "client", "pair_decision", "fields", "userId"],
            "an approved device gets pair_result success with a token and the account the admin named, and authenticates with it"),
        action: "pair_request, pair_decision approve with a new userId, then auth with the token"
    ) { context in
        let pending = try await context.requestPairing()
        let account = await context.newAccountID()
        let result = try await context.ruleStep([pending.socket, pending.admin]) {
            try await pending.admin.send(Frames.decision(deviceID: pending.deviceID, approve: true, userID: account))
            return try await pending.socket.expect(type: "pair_result")
        }
        guard result.bool("success") == true, let token = result.string("token"), result.string("userId") == account else {
            throw ContractBreach(expected: "pair_result success with a token and userId \(account)", got: result.description)
        }
        let chat = try await context.open("chat socket")
        try await chat.send(Frames.auth(deviceID: pending.deviceID, token: token))
        let auth = try await chat.expect(type: "auth_result")
        try require(
            auth.bool("success") == true && auth.string("userId") == account, expected: "auth_result success, userId \(account)",
            got: auth.description)
        return "pair_result success, userId as approved; auth_result success"
    }

    static let deniedDeviceIsToldAndClosed = ConformanceCase(
        "pairing.denied-device-is-told-and-closed", group: "pairing",
        rule: ContractRule(
            ["messages", "server", "pair_result"],
            "a denied device gets pair_result success false, reason pair_denied, and the socket closes with 1000"),
        action: "pair_request, then pair_decision approve false"
    ) { context in
        let pending = try await context.requestPairing()
        try await pending.admin.send(Frames.decision(deviceID: pending.deviceID, approve: false))
        let result = try await pending.socket.expect(type: "pair_result")
        try require(
            result.bool("success") == false && result.string("reason") == "pair_denied", expected: "pair_result success false, reason pair_denied",
            got: result.description)
        try await pending.socket.expectClose("after a failed pair_result", code: 1000)
        return "pair_result pair_denied, then close 1000"
    }

    static let firstDecisionWins = ConformanceCase(
        "pairing.first-decision-wins", group: "pairing",
        rule: ContractRule(
            ["messages", "client", "pair_decision"], "the first decision wins; a later decision on the same request gets error invalid_message"),
        action: "pair_request, pair_decision approve, then pair_decision deny on the same device"
    ) { context in
        let pending = try await context.requestPairing()
        let admin = pending.admin
        let account = await context.newAccountID()
        // The first decision is the setup; the rule is about the second.
        try await context.setupStep("approving device \(pending.deviceID.prefix(8)) into account \(account)", [pending.socket, admin]) {
            try await admin.send(Frames.decision(deviceID: pending.deviceID, approve: true, userID: account))
            let result = try await pending.socket.expect(type: "pair_result")
            try require(result.bool("success") == true, expected: "pair_result success after the approval", got: result.description)
        }
        try await admin.send(Frames.decision(deviceID: pending.deviceID, approve: false))
        let error = try await admin.expect(type: "error", "error invalid_message for the second decision")
        try require(error.isError("invalid_message"), expected: "error invalid_message", got: error.description)
        try await admin.settle()
        return "pair_result success; the second decision: \(error.string("code") ?? "?"), the admin's socket open"
    }

    static let pendingRequestsSentAgain = ConformanceCase(
        "pairing.pending-requests-sent-again-on-admin-auth", group: "pairing",
        rule: ContractRule(
            ["messages", "server", "pair_approval_request"], "every request still pending is sent again to an admin each time it authenticates"),
        action: "pair_request, then the admin reconnects"
    ) { context in
        let pending = try await context.requestPairing()
        let deviceID = pending.deviceID
        await context.forgetAdminConnection()
        let admin = try await context.adminConnection()
        let again = try await admin.expect(type: "pair_approval_request", "pair_approval_request for the pending device after auth") {
            $0.string("deviceId") == deviceID
        }
        try await admin.send(Frames.decision(deviceID: deviceID, approve: false))
        try await pending.socket.expect(type: "pair_result")
        return again.description
    }

    static let onlyAdminsDecide = ConformanceCase(
        "pairing.only-admins-decide", group: "pairing",
        rule: ContractRule(
            ["session", "guards", "admin_decides"],
            "a device that is not an admin gets no pair_approval_request, and its pair_decision is invalid_message and decides nothing"),
        action: "a member's pair_decision approving a pending device, then the admin's denial"
    ) { context in
        let member = try await context.pair()
        let (memberSocket, _) = try await context.connect(member, name: "member \(member.shortID)")
        let pending = try await context.requestPairing()
        let deviceID = pending.deviceID
        try await memberSocket.send(Frames.decision(deviceID: deviceID, approve: true, userID: member.userID))
        let error = try await memberSocket.expect(type: "error", "error invalid_message for a member's decision")
        try require(error.isError("invalid_message"), expected: "error invalid_message", got: error.description)
        let seen = try await memberSocket.settle()
        try require(
            !seen.contains { $0.type == "pair_approval_request" }, expected: "no pair_approval_request on a member's socket",
            got: seen.map(\.description).joined(separator: ", "))
        try await pending.admin.send(Frames.decision(deviceID: deviceID, approve: false))
        let result = try await pending.socket.expect(type: "pair_result")
        try require(
            result.bool("success") == false, expected: "the request still pending, so the admin's denial decides it",
            got: "pair_result \(result.description) (the member's decision decided it)")
        return "invalid_message for the member; no approval request on its socket; the admin's denial decided"
    }

    static let pairedDeviceCannotPairAgain = ConformanceCase(
        "pairing.paired-device-cannot-pair-again", group: "pairing",
        rule: ContractRule(
            ["messages", "client", "pair_request"],
            "a pair_request that re-pairs a paired device (that has authenticated) is answered invalid_message and closes the socket"),
        action: "pair and authenticate a device, then pair_request for it again"
    ) { context in
        let device = try await context.pair()
        let (chat, _) = try await context.connect(device)
        await chat.disconnect()
        let pairing = try await context.open("second pairing socket")
        try await pairing.send(Frames.pairRequest(deviceID: device.deviceID))
        let error = try await pairing.expect("error invalid_message") { $0.type == "error" || $0.type == "pair_result" }
        try require(error.isError("invalid_message"), expected: "error invalid_message", got: error.description)
        let code = try await pairing.expectClose("after re-pairing is refused")
        return "invalid_message, then close \(code.map(String.init) ?? "without a code")"
    }
}
