import ClawlineProtocol
import Foundation
import Observation

/// The admin's list of devices waiting for approval.
@Observable
@MainActor
public final class ApprovalsViewModel {
    /// The requests not decided yet, oldest first.
    public private(set) var requests: [PairApprovalRequest] = []
    public private(set) var error: String?
    @ObservationIgnored private let auth: any AuthManaging
    @ObservationIgnored private let connection: any ConnectionServicing
    @ObservationIgnored private var observation: Task<Void, Never>?

    /// A model showing `connection`'s requests when `auth` says the device is an admin.
    public init(auth: any AuthManaging, connection: any ConnectionServicing) {
        self.auth = auth
        self.connection = connection
    }

    /// Starts listening for requests (admins only; others see none).
    public func start() {
        guard observation == nil, auth.isAdmin else { return }
        let stream = connection.incomingPairingRequests
        observation = Task { [weak self] in
            for await request in stream {
                guard let self else { return }
                // The server re-sends pending requests on every authentication: keep one per device.
                if let index = self.requests.firstIndex(where: { $0.deviceId == request.deviceId }) {
                    self.requests[index] = request
                } else {
                    self.requests.append(request)
                }
            }
        }
    }

    /// Stops listening.
    public func stop() {
        observation?.cancel()
        observation = nil
    }

    /// Approves a device into this account, or into a new one.
    public func approve(_ request: PairApprovalRequest, intoNewAccount: Bool = false) async {
        guard let userId = intoNewAccount ? UserId.newAccount() : auth.currentUserId else {
            error = "This device has no account."
            return
        }
        await decide(request) { try await $0.approvePairing(deviceId: request.deviceId, userId: userId) }
    }

    /// Denies a device.
    public func deny(_ request: PairApprovalRequest) async {
        await decide(request) { try await $0.denyPairing(deviceId: request.deviceId) }
    }

    /// Sends a decision and removes the request: a decision the server refuses means another admin
    /// decided first or the request expired, so the item goes either way.
    private func decide(_ request: PairApprovalRequest, _ send: (any ConnectionServicing) async throws -> Void) async {
        requests.removeAll { $0.deviceId == request.deviceId }
        do {
            try await send(connection)
            error = nil
        } catch {
            self.error = (error as? ClawlineClientError)?.description ?? error.localizedDescription
        }
    }
}
