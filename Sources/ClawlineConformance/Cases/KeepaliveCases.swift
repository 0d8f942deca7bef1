import Foundation

/// The keepalive: the provider pings, and closes a peer that never answers (timers: with `--timers`).
enum KeepaliveCases {
    static let all: [ConformanceCase] = [providerPings, silentPeerIsClosed]

    /// `pingInterval`: 30 s.
    static let pingInterval: Duration = .seconds(30)
    /// `pongTimeout`: 90 s.
    static let pongTimeout: Duration = .seconds(90)

    static let providerPings = ConformanceCase(
        "keepalive.provider-pings", group: "keepalive",
        rule: ContractRule(["constants", "pingInterval"], "the provider sends a WebSocket ping every 30 s; clients never ping"),
        action: "an authenticated socket that sends nothing, waiting up to 30 s and the timeout for a ping",
        requires: [.timers, .pingObservingTransport]
    ) { context in
        let device = try await context.pair()
        let (_, socket) = try await context.connectObservingPings(device, answeringPings: true, name: "an idle socket")
        let pinged = await socket.waitForPing(within: pingInterval + context.timeout)
        try require(pinged, expected: "a ping within \(pingInterval)", got: "none within \(pingInterval + context.timeout)")
        return "a ping"
    }

    static let silentPeerIsClosed = ConformanceCase(
        "keepalive.silent-peer-is-closed", group: "keepalive",
        rule: ContractRule(
            ["constants", "pongTimeout"],
            "a socket from which no pong has come for 90 s is closed with 1001; one that answers pings stays open"),
        action: "two authenticated idle sockets, one answering pings and one not, for up to 90 s, a ping interval and the timeout",
        requires: [.timers, .pingObservingTransport]
    ) { context in
        let silentDevice = try await context.pair()
        let answeringDevice = try await context.pair()
        let clock = ContinuousClock()
        let opened = clock.now
        let (silent, _) = try await context.connectObservingPings(silentDevice, answeringPings: false, name: "a socket that never pongs")
        let (answering, _) = try await context.connectObservingPings(answeringDevice, answeringPings: true, name: "a socket that pongs")
        let code = try await silent.expectClose("no pong for 90 s", within: pongTimeout + pingInterval + context.timeout)
        let elapsed = opened.duration(to: clock.now)
        let after = String(format: "%.1f s", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        try require(code == 1001, expected: "close 1001", got: "close \(code.map(String.init) ?? "without a code") after \(after)")
        try require(elapsed >= pongTimeout - .seconds(1), expected: "the close after 90 s without a pong", got: "close 1001 after \(after)")
        try await answering.settle()
        return "close 1001 after \(after); the answering socket open"
    }
}
