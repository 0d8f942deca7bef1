import ClawlineProtocol
import Foundation
import Observation

/// Where pairing is, for the pairing screen.
public enum PairingState: Sendable, Hashable {
    case idle
    case enteringName
    /// Waiting for an admin (the code is for a future protocol version; always `nil` in v1).
    case waitingForApproval(code: String?)
    case success
    case error(String)
}

/// The pairing screen: a name, then waiting for approval, then credentials stored.
@Observable
@MainActor
public final class PairingViewModel {
    public var state: PairingState = .idle
    public var nameInput = ""
    @ObservationIgnored private let auth: any AuthManaging
    @ObservationIgnored private let connection: any ConnectionServicing
    @ObservationIgnored private let deviceId: DeviceId

    /// A model pairing `device` through `connection` and storing the result in `auth`.
    public init(auth: any AuthManaging, connection: any ConnectionServicing, device: any DeviceIdentifying) {
        self.auth = auth
        self.connection = connection
        deviceId = device.deviceId
    }

    /// Pairs with the name typed: checks the server's version, then waits for the answer.
    public func submitName() async {
        let name = nameInput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else {
            state = .error("Name cannot be empty")
            return
        }
        state = .waitingForApproval(code: nil)
        do {
            try await connection.checkVersion()
            switch try await connection.requestPairing(claimedName: name, deviceId: deviceId) {
            case .success(let credentials):
                auth.storeCredentials(credentials)
                state = .success
            case .denied(let reason):
                state = .error(Self.text(for: reason))
            }
        } catch {
            state = .error((error as? ClawlineClientError)?.description ?? error.localizedDescription)
        }
    }

    /// What to tell the user about a refusal.
    public static func text(for reason: PairFailureReason) -> String {
        switch reason {
        case .pairDenied: "An admin denied this device."
        case .pairRejected: "This device is not allowed on this server."
        case .pairTimeout: "No admin answered in time. Try again."
        case .unknown(let other): "Pairing failed (\(other))."
        }
    }
}
