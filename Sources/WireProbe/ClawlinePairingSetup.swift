import Foundation
import WireRuntime

/// `--pair`: reaches Clawline's `authenticated` phase by pairing a fresh device and
/// authenticating it, each identity a device of its own.
///
/// The first device to pair on a provider with no devices is its admin and is approved at once;
/// the probe keeps it as its admin, connected, and approves the devices it pairs after it (only
/// those). On a provider with devices, pass an admin's credentials (`--admin-device`,
/// `--admin-token`) and that admin approves them.
public actor ClawlinePairingSetup: ProbeSetup {
    /// An admin's device id and token.
    public struct Credentials: Sendable {
        public var deviceID: String
        public var token: String
        /// A device of the credentials' account and its token.
        public init(deviceID: String, token: String) {
            self.deviceID = deviceID
            self.token = token
        }
    }

    private var admin: Credentials?
    private var adminTask: Task<Void, Never>?
    private var adminUserID: String?
    private var awaitingApproval: Set<String> = []
    private var adminSession: ProbeSetupContext.Socket?

    /// A setup that approves with `admin`, or makes the first device it pairs the admin.
    public init(admin: Credentials? = nil) { self.admin = admin }

    public nonisolated var phases: Set<String> { ["authenticated"] }

    public func reach(_ phase: String, identity: Int, context: ProbeSetupContext) async throws -> ProbeSetupContext.Socket {
        if admin == nil {
            // The first pairing: on a fresh provider, this device becomes the admin.
            let first = try await pair(context: context)
            admin = first
        }
        try await connectAdmin(context: context)
        let device = try await pair(context: context)
        return try await authenticate(device, context: context)
    }

    /// The admin the probe approves with: the one it was given, or the first device it paired.
    public var adminCredentials: Credentials? { admin }

    /// Ends the admin's socket.
    public func finish() async {
        adminTask?.cancel()
        if let adminSession { await adminSession.session.close() }
    }

    private func pair(context: ProbeSetupContext) async throws -> Credentials {
        let deviceID = UUID().uuidString.lowercased()
        awaitingApproval.insert(deviceID)
        defer { awaitingApproval.remove(deviceID) }
        let socket = try await context.open()
        defer { Task { await socket.session.close() } }
        let request: JSONValue = [
            "type": "pair_request", "protocolVersion": 1, "deviceId": .string(deviceID),
            "deviceInfo": ["platform": "wire-probe", "model": "probe"],
        ]
        try await socket.session.send(request.text)
        let clock = ContinuousClock()
        let deadline = clock.now + context.timeout
        while clock.now < deadline {
            guard let event = try await socket.session.next(within: deadline - clock.now) else { break }
            guard case .text(let text) = event, case .object(let members)? = try? JSONParser.parse(text) else {
                if case .closed = event { break }
                continue
            }
            guard members["type"] == "pair_result" else { continue }
            guard members["success"] == true, case .string(let token)? = members["token"] else {
                throw ProbeSetupError("pairing a probe device failed: \(text)")
            }
            return Credentials(deviceID: deviceID, token: token)
        }
        throw ProbeSetupError(
            admin == nil
                ? "the provider did not answer pair_request within \(context.timeout): it has devices already, so an admin must approve; "
                    + "pass --admin-device and --admin-token"
                : "the provider did not answer pair_request within \(context.timeout), though the probe's admin was connected to approve it")
    }

    private func authenticate(_ device: Credentials, context: ProbeSetupContext) async throws -> ProbeSetupContext.Socket {
        let socket = try await context.open()
        let auth: JSONValue = ["type": "auth", "protocolVersion": 1, "token": .string(device.token), "deviceId": .string(device.deviceID)]
        try await socket.session.send(auth.text)
        let clock = ContinuousClock()
        let deadline = clock.now + context.timeout
        while await socket.session.phase != "authenticated" {
            guard await !socket.session.isClosed, clock.now < deadline, try await socket.session.next(within: deadline - clock.now) != nil else {
                let values = await socket.session.values()
                throw ProbeSetupError(
                    "device \(device.deviceID) did not authenticate: \(values["auth_result.reason"] ?? values["error.code"] ?? "no auth_result")")
            }
        }
        return socket
    }

    /// Connects the admin and starts approving the probe's own devices.
    private func connectAdmin(context: ProbeSetupContext) async throws {
        if let adminSession, await !adminSession.session.isClosed { return }
        guard let admin else { return }
        let socket = try await authenticate(admin, context: context)
        adminUserID = await socket.session.values()["auth_result.userId"]
        adminSession = socket
        adminTask = Task { [weak self] in
            while !Task.isCancelled {
                guard let event = try? await socket.session.socket.next(within: .seconds(3600)) else { continue }
                guard case .text(let text) = event else { return }
                await self?.approveIfOurs(text, on: socket)
            }
        }
    }

    private func approveIfOurs(_ text: String, on socket: ProbeSetupContext.Socket) async {
        guard case .object(let members)? = try? JSONParser.parse(text), members["type"] == "pair_approval_request",
            case .string(let deviceID)? = members["deviceId"], awaitingApproval.contains(deviceID), let adminUserID
        else { return }
        let decision: JSONValue = ["type": "pair_decision", "deviceId": .string(deviceID), "approve": true, "userId": .string(adminUserID)]
        try? await socket.session.socket.send(decision.text)
    }
}
