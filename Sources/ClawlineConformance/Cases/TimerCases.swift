import Foundation

/// The contract's timers, which take minutes: they run with `--timers`.
enum TimerCases {
    static let all: [ConformanceCase] = [pairingTimesOut]

    /// `pendingPairingTTL`: 300 s.
    static let pendingPairingTTL: Duration = .seconds(300)

    static let pairingTimesOut = ConformanceCase(
        "timer.pairing-times-out", group: "timer",
        rule: ContractRule(
            ["constants", "pendingPairingTTL"], "a pairing request no admin decides fails with pair_result pair_timeout after 300 s"),
        action: "pair_request that no admin decides, waiting up to 300 s and the timeout", requires: [.timers]
    ) { context in
        let deviceID = UUID().uuidString.lowercased()
        let pairing = try await context.open("pairing socket")
        try await pairing.send(Frames.pairRequest(deviceID: deviceID))
        let result = try await pairing.expect(type: "pair_result", within: pendingPairingTTL + context.timeout)
        try require(
            result.bool("success") == false && result.string("reason") == "pair_timeout", expected: "pair_result pair_timeout",
            got: result.description)
        return result.description
    }
}
