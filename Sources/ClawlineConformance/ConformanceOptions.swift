import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the suite reaches the provider and what it may do there.
public struct ConformanceOptions: Sendable {
    /// The provider's WebSocket URL (`ws://host:port/ws`).
    public var url: URL
    /// The base of the provider's HTTP endpoints (`http://host:port`), from ``url`` by default.
    public var httpBase: URL
    /// How long a case waits for an answer the contract says is due.
    public var timeout: Duration
    /// An admin of the provider, for a provider that has devices (the suite pairs its own first
    /// admin on a fresh provider).
    public var admin: PairedDevice?
    /// A shell command that revokes a device's token: `{device}` is replaced by the device's id
    /// (`clawline-server devices revoke --data-dir D {device}`). Without it the revocation cases
    /// are skipped.
    public var operatorCommand: String?
    /// Whether cases that wait for the contract's timers (pairing expiry: 5 minutes; keepalive:
    /// 30 s and 90 s) run. Off by default: they are skipped, with what they would wait.
    public var runTimers: Bool
    /// Whether the provider's assistant streams an answer for long enough (half a second or more)
    /// for a socket to go while it streams, which the stream cases need. Off by default: they are
    /// skipped, since against an answer that is final at once a close cannot be told from a race.
    public var streamingAssistant: Bool
    /// How the transfer cases send an HTTP request and read its whole response (any status):
    /// `URLSession.shared` by default. The `clawline conformance` command passes ClawlineClient's
    /// `NIOHTTPExchange`, which trusts its `--ca-file` and never calls `URLSession` on Linux.
    public var sendHTTP: @Sendable (URLRequest) async throws -> (Data, URLResponse)

    /// Options for the provider at `url`.
    public init(
        url: URL, httpBase: URL? = nil, timeout: Duration = .seconds(5), admin: PairedDevice? = nil, operatorCommand: String? = nil,
        runTimers: Bool = false, streamingAssistant: Bool = false
    ) {
        self.url = url
        self.httpBase = httpBase ?? Self.httpBase(of: url)
        self.timeout = timeout
        self.admin = admin
        self.operatorCommand = operatorCommand
        self.runTimers = runTimers
        self.streamingAssistant = streamingAssistant
        self.sendHTTP = { try await URLSession.shared.data(for: $0) }
    }

    /// `ws://h:p/ws` → `http://h:p`, `wss://…` → `https://…`.
    static func httpBase(of url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.scheme = url.scheme == "wss" ? "https" : "http"
        components.path = ""
        components.query = nil
        return components.url ?? url
    }
}
