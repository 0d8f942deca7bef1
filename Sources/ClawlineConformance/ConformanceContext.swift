import Foundation
import WireProbe
import WireRuntime

/// What a case works with: sockets to the provider, paired devices, the suite's admin, the
/// provider's HTTP endpoints and, when given, the operator's command.
///
/// The suite's admin is the first device it pairs on a fresh provider, or the one it was given.
/// It approves the devices the cases pair, each into a new account unless a case asks for an
/// existing one, so that one case's frames never reach another case's sockets.
public actor ConformanceContext {
    /// The suite's options.
    public let options: ConformanceOptions
    private let connector: any ProbeConnector
    private let keepaliveConnector: (any PingObservingConnector)?
    private var adminDevice: PairedDevice?
    private var adminSocket: ClawlineConnection?
    /// Whether the provider had no device when the suite started (it paired its admin).
    public private(set) var providerWasFresh = false
    /// The first pairing on a fresh provider: its `pair_result`, then the admin's `auth_result`.
    public private(set) var firstPairing: (pairResult: ReceivedFrame, authResult: ReceivedFrame)?
    /// The connections the current case opened.
    private var opened: [ClawlineConnection] = []
    /// The provider limits the current case found absent.
    private var warnings: [String] = []

    init(options: ConformanceOptions, connector: any ProbeConnector, keepaliveConnector: (any PingObservingConnector)?) {
        self.options = options
        self.connector = connector
        self.keepaliveConnector = keepaliveConnector
        adminDevice = options.admin
    }

    /// The suite's admin (after ``start()``).
    public var admin: PairedDevice? { adminDevice }

    /// The contract's wait for an answer that is due.
    public nonisolated var timeout: Duration { options.timeout }

    // MARK: Sockets

    /// A new socket to the provider.
    public func open(_ name: String) async throws -> ClawlineConnection {
        track(ClawlineConnection(socket: try await openRaw(), name: name, timeout: options.timeout))
    }

    /// A socket of `device` that shows pings, answering them when `answeringPings`, authenticated:
    /// the connection, and the socket for its pings.
    public func connectObservingPings(
        _ device: PairedDevice, answeringPings: Bool, name: String
    ) async throws -> (
        ClawlineConnection, any PingObservingSocket
    ) {
        guard let keepaliveConnector else { throw ConformanceSetupError("the suite has no transport that shows pings") }
        let socket = try await opening { try await keepaliveConnector.open(answeringPings: answeringPings) }
        let connection = track(ClawlineConnection(socket: socket, name: name, timeout: options.timeout))
        try await authenticate(connection, as: device)
        return (connection, socket)
    }

    /// A socket of `device`, authenticated (with `lastMessageId` when given), and its `auth_result`.
    public func connect(
        _ device: PairedDevice, lastMessageId: String? = nil, name: String? = nil
    ) async throws -> (
        ClawlineConnection, ReceivedFrame
    ) {
        let connection = try await open(name ?? "device \(device.shortID)")
        return (connection, try await authenticate(connection, as: device, lastMessageId: lastMessageId))
    }

    /// Sends `auth` for `device` on `connection` and returns its successful `auth_result`.
    @discardableResult
    private func authenticate(
        _ connection: ClawlineConnection, as device: PairedDevice, lastMessageId: String? = nil
    ) async throws
        -> ReceivedFrame
    {
        let result = try await setupStep("authenticating device \(device.shortID)", [connection]) {
            try await connection.send(Frames.auth(device, lastMessageId: lastMessageId))
            return try await connection.expect(type: "auth_result")
        }
        guard result.bool("success") == true else {
            throw ConformanceSetupError("device \(device.shortID) could not authenticate: \(result)")
        }
        return result
    }

    /// Keeps `connection` among the current case's, to close and check when the case ends.
    private func track(_ connection: ClawlineConnection) -> ClawlineConnection {
        opened.append(connection)
        return connection
    }

    private func openRaw() async throws -> any ProbeSocket { try await opening { try await connector.open() } }

    /// A socket `open` opened, or the error saying the provider could not be reached.
    private func opening<Socket>(_ open: () async throws -> Socket) async throws -> Socket {
        do {
            return try await open()
        } catch {
            throw ConformanceSetupError("could not open a WebSocket to \(options.url.absoluteString): \(error)")
        }
    }

    /// Notes that the provider lacks a limit the spec states as a provider's own, not as a rule
    /// of the contract (a security header, say): the case passes with a warning.
    public func warn(_ absentLimit: String) {
        warnings.append(absentLimit)
    }

    /// Ends the case: closes the sockets it opened and returns the session rules their frames
    /// broke and the warnings the case noted.
    func finishCase() async -> (violations: [String], warnings: [String]) {
        var violations: [String] = []
        for connection in opened {
            violations += await connection.violations.map { "\(connection.name): \($0)" }
            await connection.disconnect()
        }
        opened = []
        defer { warnings = [] }
        return (violations, warnings)
    }

    // MARK: Devices

    /// A pairing request waiting for the admin: the new device's id, its pairing socket, the
    /// admin's socket and the `pair_approval_request` it got.
    public struct PendingPairing: Sendable {
        public var deviceID: String
        public var socket: ClawlineConnection
        public var admin: ClawlineConnection
        public var approvalRequest: ReceivedFrame
    }

    /// Sends `pair_request` for a new device claiming `name` on a socket of its own, and waits
    /// for the admin's `pair_approval_request` for it.
    public func requestPairing(name: String = "conformance") async throws -> PendingPairing {
        let deviceID = UUID().uuidString.lowercased()
        let pairing = try await open("pairing socket of \(deviceID.prefix(8))")
        let admin = try await adminConnection()
        return try await setupStep("asking to pair device \(deviceID.prefix(8)) and waiting for the admin's approval request", [pairing, admin]) {
            try await pairing.send(Frames.pairRequest(deviceID: deviceID, name: name))
            let request = try await admin.expect(type: "pair_approval_request", "pair_approval_request for \(deviceID.prefix(8))") {
                $0.string("deviceId") == deviceID
            }
            return PendingPairing(deviceID: deviceID, socket: pairing, admin: admin, approvalRequest: request)
        }
    }

    /// Runs a step that sets a case up: a breach inside it is not the case's rule failing, so it
    /// becomes a ``ConformanceSetupError`` naming the step and what each of `sockets` received.
    func setupStep<T>(_ step: String, _ sockets: [ClawlineConnection], _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let breach as ContractBreach {
            throw ConformanceSetupError("\(step): expected \(breach.expected), got \(breach.got); " + (await Self.answers(on: sockets)))
        }
    }

    /// Runs the step a case's rule is about: a breach inside it is the rule failing, and says what
    /// each of `sockets` received besides (the admin's `error` in answer to its decision, say).
    func ruleStep<T>(_ sockets: [ClawlineConnection], _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let breach as ContractBreach {
            throw ContractBreach(expected: breach.expected, got: "\(breach.got); " + (await Self.answers(on: sockets)))
        }
    }

    /// What each of `sockets` received, after a marker's answer where the socket is open.
    private static func answers(on sockets: [ClawlineConnection]) async -> String {
        var answers: [String] = []
        for socket in sockets {
            // A marker's answer shows everything the provider sent before it (an error on the admin's socket, say).
            if await !socket.isClosed { _ = try? await socket.settle() }
            answers.append("\(socket.name): \(await socket.receivedWords)")
        }
        return answers.joined(separator: "; ")
    }

    /// Pairs a new device, approved by the suite's admin into `account` (a new account when
    /// `nil`), and returns it with its token.
    public func pair(into account: String? = nil, name: String = "conformance") async throws -> PairedDevice {
        let pending = try await requestPairing(name: name)
        let (deviceID, pairing) = (pending.deviceID, pending.socket)
        let userID = account ?? newAccountID()
        let step = "approving device \(deviceID.prefix(8)) into account \(userID)"
        let result = try await setupStep(step, [pairing, pending.admin]) {
            try await pending.admin.send(Frames.decision(deviceID: deviceID, approve: true, userID: userID))
            return try await pairing.expect(type: "pair_result")
        }
        guard result.bool("success") == true, let token = result.string("token") else {
            throw ConformanceSetupError("\(step): pair_result was not a success: \(result)")
        }
        await pairing.disconnect()
        return PairedDevice(deviceID: deviceID, token: token, userID: result.string("userId") ?? userID)
    }

    /// The id of a new account, in the form the provider uses: the contract names accounts
    /// `user_` and a new UUID (`"userId": "user_..."`), and a provider may refuse another form.
    /// When the admin's own account id shows another form (a bare UUID, another prefix before a
    /// UUID), new ids follow it.
    public func newAccountID() -> String {
        let uuid = UUID().uuidString.lowercased()
        guard let adminAccount = adminDevice?.userID, adminAccount.count >= 36 else { return "user_" + uuid }
        let (prefix, tail) = (adminAccount.dropLast(36), adminAccount.suffix(36))
        guard UUID(uuidString: String(tail)) != nil else { return "user_" + uuid }
        return prefix + uuid
    }

    /// The admin's socket, authenticated: the one open, or a new one.
    public func adminConnection() async throws -> ClawlineConnection {
        if let adminSocket, await !adminSocket.isClosed { return adminSocket }
        guard var adminDevice else { throw ConformanceSetupError("the suite has no admin (start() pairs or takes one)") }
        let connection = ClawlineConnection(
            socket: try await openRaw(), name: "the admin \(adminDevice.shortID)", timeout: options.timeout)
        let result: ReceivedFrame
        do {
            result = try await authenticate(connection, as: adminDevice)
        } catch let error as ConformanceSetupError {
            throw ConformanceSetupError(
                "\(error.description); pass an admin of this provider with --admin-file or --admin-device and --admin-token")
        }
        adminDevice.userID = result.string("userId") ?? adminDevice.userID
        self.adminDevice = adminDevice
        adminSocket = connection
        return connection
    }

    /// Drops the admin's socket (a case that took it over, or closed it); the next use opens another.
    public func forgetAdminConnection() async {
        await adminSocket?.disconnect()
        adminSocket = nil
    }

    /// Finds the suite's admin: pairs the first device of a fresh provider, or authenticates the
    /// admin it was given.
    func start() async throws {
        if adminDevice == nil {
            let deviceID = UUID().uuidString.lowercased()
            let pairing = ClawlineConnection(socket: try await openRaw(), name: "the first device", timeout: options.timeout)
            try await pairing.send(Frames.pairRequest(deviceID: deviceID, name: "conformance admin"))
            let result: ReceivedFrame
            do {
                result = try await pairing.expect(type: "pair_result")
            } catch {
                await pairing.disconnect()
                throw ConformanceSetupError(
                    "the provider did not answer the first pair_request within \(options.timeout): it has devices, so an admin must "
                        + "approve; pass --admin-file, or --admin-device and --admin-token")
            }
            await pairing.disconnect()
            guard result.bool("success") == true, let token = result.string("token") else {
                throw ConformanceSetupError("the first pair_request was refused: \(result)")
            }
            adminDevice = PairedDevice(deviceID: deviceID, token: token, userID: result.string("userId") ?? "")
            providerWasFresh = true
            let admin = try await adminConnection()
            firstPairing = (result, await admin.received.first { $0.type == "auth_result" } ?? result)
        } else {
            _ = try await adminConnection()
        }
    }

    /// Closes the admin's socket.
    func finish() async {
        await forgetAdminConnection()
    }

    // MARK: The operator

    /// Runs the operator's command for `device` (revoking its token); throws when there is none
    /// or it fails.
    public func runOperatorCommand(for device: PairedDevice) async throws {
        guard let template = options.operatorCommand else { throw ConformanceSetupError("no --operator-cmd was given") }
        let command = template.replacingOccurrences(of: "{device}", with: device.deviceID)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ConformanceSetupError(
                "the operator command `\(command)` exited with \(process.terminationStatus): \(String(decoding: bytes, as: UTF8.self))")
        }
    }
}
