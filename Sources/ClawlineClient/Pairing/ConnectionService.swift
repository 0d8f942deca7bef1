import ClawlineProtocol
import Foundation
import WireRuntime

/// How a pairing request ended.
public enum PairingResult: Sendable, Hashable {
    /// Approved: the credentials to store.
    case success(Credentials)
    /// Refused: `pair_rejected` (the device is denylisted), `pair_denied` (an admin said no) or
    /// `pair_timeout` (nobody decided in time).
    case denied(PairFailureReason)
}

/// Pairing and admin approvals (seed 000's `ConnectionServicing`).
public protocol ConnectionServicing: Sendable {
    /// Fails with ``ClawlineClientError/updateRequired(serverVersion:)`` when the server speaks
    /// another protocol version.
    func checkVersion() async throws
    /// Pairs this device on a short-lived socket and waits for the answer (an admin's decision
    /// for every device but the first).
    func requestPairing(claimedName: String, deviceId: DeviceId) async throws -> PairingResult
    /// The pairing requests an admin may decide, read from the chat socket.
    var incomingPairingRequests: AsyncStream<PairApprovalRequest> { get }
    /// Approves a device into the account `userId` (an existing account, or a new UUID for a new one).
    func approvePairing(deviceId: DeviceId, userId: UserId) async throws
    /// Denies a device.
    func denyPairing(deviceId: DeviceId) async throws
}

/// The reference ``ConnectionServicing``.
///
/// While a request waits for an admin, the socket stays open; when it is lost the request is
/// sent again every `deviceApprovalRetryInterval` (the server keeps the original request and its
/// timer). `rate_limited` is retried with the reconnect backoff. Approval requests come from the
/// chat socket given to ``attach(_:)``, so a device keeps one socket.
public actor ConnectionService: ConnectionServicing {
    public nonisolated let incomingPairingRequests: AsyncStream<PairApprovalRequest>
    private let requestSink: AsyncStream<PairApprovalRequest>.Continuation
    /// The provider's base URL.
    public nonisolated let serverURL: URL
    private let deviceInfo: DeviceInfo
    private let transport: any WebSocketTransport
    private let environment: ClientEnvironment
    private let observer: FrameObserver?
    private let connections = ConnectionCounter(prefix: "pair")
    /// The provider's HTTP endpoints (the version check).
    private let http: any ProviderHTTP
    private var chat: (any ChatServicing)?
    private var reader: Task<Void, Never>?
    /// Called once a request waits for an admin (the answer did not come at once).
    private let onWaiting: (@Sendable () -> Void)?
    private var toldWaiting = false

    /// A service for the provider at `serverURL`; `deviceInfo` is shown to the admin.
    public init(
        serverURL: URL, deviceInfo: DeviceInfo, transport: any WebSocketTransport = PlatformTransport.make(),
        environment: ClientEnvironment = ClientEnvironment(), observer: FrameObserver? = nil, onWaiting: (@Sendable () -> Void)? = nil,
        http: (any ProviderHTTP)? = nil
    ) {
        self.serverURL = serverURL
        self.http = http ?? ProviderHTTPClient(baseURL: serverURL)
        self.deviceInfo = deviceInfo
        self.transport = transport
        self.environment = environment
        self.observer = observer
        self.onWaiting = onWaiting
        (incomingPairingRequests, requestSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(Clawline.Constants.pendingPairingCapacity))
    }

    deinit {
        reader?.cancel()
        requestSink.finish()
    }

    /// Reads approval requests from `chat`'s server frames (it becomes their only reader) and sends
    /// decisions through it.
    ///
    /// Attaching the chat service already attached changes nothing: its frames are one stream,
    /// and a stream whose reader is cancelled ends for good, so a second reader would hear nothing.
    public func attach(_ chat: any ChatServicing) {
        if let attached = self.chat, reader != nil, attached as AnyObject === chat as AnyObject { return }
        self.chat = chat
        reader?.cancel()
        let sink = requestSink
        reader = Task {
            for await frame in chat.serverFrames {
                if case .pairApprovalRequest(let request) = frame { sink.yield(request) }
            }
        }
    }

    public func checkVersion() async throws {
        try await http.checkVersion()
    }

    public func approvePairing(deviceId: DeviceId, userId: UserId) async throws {
        guard let chat else { throw ClawlineClientError.notConnected }
        try await chat.send(decision: PairDecision(deviceId: deviceId, approve: true, userId: userId))
    }

    public func denyPairing(deviceId: DeviceId) async throws {
        guard let chat else { throw ClawlineClientError.notConnected }
        try await chat.send(decision: PairDecision(deviceId: deviceId, approve: false))
    }

    public func requestPairing(claimedName: String, deviceId: DeviceId) async throws -> PairingResult {
        let request = PairRequest(deviceId: deviceId, claimedName: Self.clamp(claimedName), deviceInfo: deviceInfo)
        var rateBackoff = ReconnectBackoff(random: environment.random)
        toldWaiting = false
        while true {
            try Task.checkCancellation()
            switch try await attempt(request) {
            case .answered(let result):
                return result
            case .rateLimited:
                try await environment.sleep(for: rateBackoff.nextDelay())
            case .lostWhileWaiting:
                tellWaiting()
                try await environment.sleep(for: Clawline.Constants.deviceApprovalRetryInterval)
            }
        }
    }

    private enum Attempt {
        case answered(PairingResult)
        case rateLimited
        case lostWhileWaiting
    }

    /// One pairing socket: sends the request and reads until the answer or the close.
    private func attempt(_ request: PairRequest) async throws -> Attempt {
        let transport = transport
        let url = socketURL(of: serverURL)
        let socket = try await environment.withDeadline(Clawline.Constants.connectTimeout, "opening \(url.absoluteString)") {
            try await transport.connect(to: url)
        }
        let name = connections.next()
        defer { socket.close() }
        let frame = ClientFrame.pairRequest(request)
        record(name, .client, frame.encodedText())
        socket.send(frame.encodedText())
        let waiting = Task { [environment] in
            guard (try? await environment.sleep(for: .seconds(1))) != nil else { return }
            self.tellWaiting()
        }
        defer { waiting.cancel() }
        for await event in socket.events {
            guard case .text(let text) = event else { break }
            record(name, .server, text)
            switch ServerFrame.decode(text: text).frame {
            case .pairResult(.success(let success)):
                return .answered(
                    .success(
                        Credentials(serverURL: serverURL, deviceId: request.deviceId, token: success.token, userId: success.userId))
                )
            case .pairResult(.failure(let failure)):
                return .answered(.denied(failure.reason))
            case .error(let error) where error.code == .rateLimited:
                return .rateLimited
            case .error(let error):
                throw ClawlineClientError.server(code: error.code, message: error.message)
            default:
                continue
            }
        }
        return .lostWhileWaiting
    }

    /// Calls `onWaiting`, once per request.
    private func tellWaiting() {
        guard !toldWaiting else { return }
        toldWaiting = true
        onWaiting?()
    }

    private func record(_ connection: String, _ direction: FrameDirection, _ text: String) {
        observer?(ObservedFrame(connection: connection, direction: direction, text: text, timestamp: environment.now()))
    }

    /// `name` cut to the spec's `maxClaimedNameBytes` UTF-8 bytes, on a character boundary.
    static func clamp(_ name: String) -> String {
        var result = ""
        var bytes = 0
        for character in name.trimmingCharacters(in: .whitespacesAndNewlines) {
            let size = String(character).utf8.count
            guard bytes + size <= Clawline.Constants.maxClaimedNameBytes else { break }
            result.append(character)
            bytes += size
        }
        return result
    }
}
