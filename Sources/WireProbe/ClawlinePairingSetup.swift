import Foundation
import WireRuntime

/// `--pair`: reaches Clawline's `authenticated` phase by pairing a fresh device and
/// authenticating it, each identity a device of its own.
///
/// The first device to pair on a provider with no devices is its admin and is approved at once.
/// The probe pairs that device before its first case (``prepare(context:)``), so that no broken
/// `pair_request` a provider accepts can become the admin first; it keeps it connected, and
/// approves the devices it pairs after it (only those). On a provider with devices, pass an
/// admin's credentials (`--admin-device`, `--admin-token`) and that admin approves them.
///
/// A case's `pair_request` that the provider should have refused but kept pending is denied by
/// the probe's admin (``cleanUp(after:)``); requests of devices the probe did not name are
/// never touched.
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
    /// Approval requests for devices the probe's setup did not pair, as the admin received them.
    private var strangers: Set<String> = []
    /// Devices of failed cases whose requests the admin denies when (or as soon as) they come.
    private var toDeny: Set<String> = []
    /// Devices the admin denied, for the report.
    private var denied: Set<String> = []

    /// A setup that approves with `admin`, or makes the first device it pairs the admin.
    public init(admin: Credentials? = nil) { self.admin = admin }

    public nonisolated var phases: Set<String> { ["authenticated"] }

    /// Pairs the probe's admin (unless one was given) and connects it, before any case runs.
    public func prepare(context: ProbeSetupContext) async throws {
        if admin == nil {
            // The first pairing: on a fresh provider, this device becomes the admin.
            do {
                admin = try await pair(context: context)
            } catch {
                throw ProbeSetupError("pairing the probe's admin (the first device of a fresh provider): \(error)")
            }
        }
        do {
            try await connectAdmin(context: context)
        } catch {
            throw ProbeSetupError("authenticating the probe's admin: \(error)")
        }
    }

    /// Denies the pairing request a failed case's `pair_request` left pending: the request is the
    /// case's own (its device id is fresh), so no one else's request is decided.
    public func cleanUp(after probeCase: ProbeCase) async -> String? {
        let devices = probeCase.frames.compactMap { frame -> String? in
            guard case .object(let members)? = try? JSONParser.parse(frame), members["type"] == "pair_request",
                case .string(let deviceID)? = members["deviceId"]
            else { return nil }
            return deviceID
        }
        guard let device = devices.last else { return nil }
        if strangers.contains(device) {
            await deny(device)
            return "the provider kept the request pending (its admin was asked): the probe's admin denied device \(device)"
        }
        toDeny.insert(device)
        return "the probe's admin denies device \(device)'s request if the provider asks it later"
    }

    public func reach(_ phase: String, identity: Int, context: ProbeSetupContext) async throws -> ProbeSetupContext.Socket {
        if admin == nil { try await prepare(context: context) }
        do {
            try await connectAdmin(context: context)
        } catch {
            throw ProbeSetupError("authenticating the probe's admin: \(error)")
        }
        let device: Credentials
        do {
            device = try await pair(context: context)
        } catch {
            throw ProbeSetupError("pairing a device approved by the probe's admin: \(error)")
        }
        do {
            return try await authenticate(device, context: context)
        } catch {
            throw ProbeSetupError("authenticating a device the probe paired: \(error)")
        }
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
            case .string(let deviceID)? = members["deviceId"]
        else { return }
        guard awaitingApproval.contains(deviceID), let adminUserID else {
            strangers.insert(deviceID)
            if toDeny.contains(deviceID) { await deny(deviceID) }
            return
        }
        let decision: JSONValue = ["type": "pair_decision", "deviceId": .string(deviceID), "approve": true, "userId": .string(adminUserID)]
        try? await socket.session.socket.send(decision.text)
    }

    /// Denies `deviceID`'s pending request on the admin's socket, once.
    private func deny(_ deviceID: String) async {
        guard let adminSession, !denied.contains(deviceID) else { return }
        denied.insert(deviceID)
        toDeny.remove(deviceID)
        let decision: JSONValue = ["type": "pair_decision", "deviceId": .string(deviceID), "approve": false]
        try? await adminSession.session.socket.send(decision.text)
    }
}
