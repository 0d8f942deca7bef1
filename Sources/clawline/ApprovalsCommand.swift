import ArgumentParser
import ClawlineClient
import ClawlineProtocol
import Foundation

struct Approvals: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the devices waiting for approval, approve or deny one (admin devices only).",
        subcommands: [List.self, Approve.self, Deny.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the pairing requests waiting for an admin.")
        @OptionGroup var state: StateOptions

        func run() async throws {
            let requests = try await AdminSession.withSession(state) { session in try await session.pendingRequests() }
            if requests.isEmpty { print("no device is waiting for approval") }
            for request in requests {
                let info = [request.deviceInfo.platform, request.deviceInfo.model, request.deviceInfo.osVersion].compactMap { $0 }
                print("\(request.deviceId)  \(request.claimedName ?? "(no name)")  \(info.joined(separator: " "))")
            }
        }
    }

    struct Approve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Approve a device into this account (or a new one).")
        @Argument(help: "The waiting device's id.") var deviceId: String
        @Flag(help: "Put the device in a new account instead of this device's.") var newAccount = false
        @OptionGroup var state: StateOptions

        func run() async throws {
            let account = try await AdminSession.withSession(state) { session in
                let userId = newAccount ? UserId.newAccount() : session.credentials.userId
                try await session.decide(deviceId) { try await $0.approvePairing(deviceId: DeviceId(deviceId), userId: userId) }
                return userId
            }
            print("approved \(deviceId) into account \(account)")
        }
    }

    struct Deny: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deny a device's pairing request.")
        @Argument(help: "The waiting device's id.") var deviceId: String
        @OptionGroup var state: StateOptions

        func run() async throws {
            try await AdminSession.withSession(state) { session in
                try await session.decide(deviceId) { try await $0.denyPairing(deviceId: DeviceId(deviceId)) }
            }
            print("denied \(deviceId)")
        }
    }
}

/// An admin device connected for approvals.
struct AdminSession {
    let credentials: Credentials
    let chat: ChatService
    let connection: ConnectionService
    let requests: AsyncStream<PairApprovalRequest>
    let notices: AsyncStream<ChatNotice>

    /// Connects the state's device, checks it is an admin, runs `body`, disconnects.
    static func withSession<T>(_ state: StateOptions, _ body: (AdminSession) async throws -> T) async throws -> T {
        let device = try state.load()
        let credentials = try device.requireCredentials()
        guard credentials.claims?.isAdmin == true else { throw ClientFailure("this device is not an admin; approvals are made on an admin device") }
        let chat = device.chatService(credentials)
        let connection = ConnectionService(
            serverURL: credentials.serverURL, deviceInfo: DeviceState.deviceInfo, transport: device.transport,
            http: device.http(credentials.serverURL))
        await connection.attach(chat)
        let session = AdminSession(
            credentials: credentials, chat: chat, connection: connection, requests: connection.incomingPairingRequests, notices: chat.notices)
        try await device.connect(chat, credentials)
        do {
            let value = try await body(session)
            await chat.disconnect()
            return value
        } catch {
            await chat.disconnect()
            throw error
        }
    }

    /// The requests the server re-sends to an admin when it authenticates (collected until the
    /// replay ends and a moment more).
    func pendingRequests() async throws -> [PairApprovalRequest] {
        let collector = Task { () -> [String: PairApprovalRequest] in
            var found: [String: PairApprovalRequest] = [:]
            for await request in requests { found[request.deviceId.rawValue] = request }
            return found
        }
        for await notice in notices where notice == .replayFinished { break }
        try await Task.sleep(for: .milliseconds(300))
        collector.cancel()
        return await collector.value.values.sorted { $0.deviceId.rawValue < $1.deviceId.rawValue }
    }

    /// Sends a decision, then waits briefly for the server's refusal (it sends none on success).
    func decide(_ deviceId: String, _ send: (ConnectionService) async throws -> Void) async throws {
        try await send(connection)
        let refusal = Task { () -> ErrorMessage? in
            for await notice in notices {
                if case .serverError(let error) = notice { return error }
            }
            return nil
        }
        try await Task.sleep(for: .milliseconds(500))
        refusal.cancel()
        if let error = await refusal.value {
            throw ClientFailure("the server refused the decision for \(deviceId): \(error.message) (already decided, expired, or unknown)")
        }
    }
}
