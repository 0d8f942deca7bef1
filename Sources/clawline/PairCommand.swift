import ArgumentParser
import ClawlineClient
import ClawlineProtocol
import Foundation

struct Pair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Pair this device with a provider; every device but the first waits for an admin's approval.")

    @Option(help: "The provider's base URL, e.g. http://127.0.0.1:8080.") var server: String
    @Option(help: "The name the admin sees (at most 64 UTF-8 bytes; longer names are cut).") var name: String
    @Option(
        help: ArgumentHelp(
            "A PEM file of certificate authorities to trust for an https:// provider, besides the system's (a private CA); "
                + "kept in the state directory for the other commands."))
    var caFile: String?
    @OptionGroup var state: StateOptions

    func run() async throws {
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("--server must be an http:// or https:// URL, e.g. http://127.0.0.1:8080")
        }
        let device = try state.load()
        if let caFile { try device.trust(caFile: caFile) }
        let connection = ConnectionService(
            serverURL: url, deviceInfo: DeviceState.deviceInfo, transport: device.transport,
            onWaiting: {
                write("waiting for an admin to approve this device (on an admin device: clawline approvals)\n")
            }, http: device.http(url))
        do {
            try await connection.checkVersion()
            switch try await connection.requestPairing(claimedName: name, deviceId: device.identity.deviceId) {
            case .success(let credentials):
                try device.credentials.save(credentials)
                let role = credentials.claims?.isAdmin == true ? "an admin" : "a member"
                print("paired as \(role) of account \(credentials.userId); chat with: clawline chat")
            case .denied(let reason):
                throw ClientFailure(Self.explain(reason))
            }
        } catch let error as ClawlineClientError {
            throw ClientFailure(error)
        }
    }

    static func explain(_ reason: PairFailureReason) -> String {
        switch reason {
        case .pairDenied: "an admin denied this device"
        case .pairRejected: "this device is denied on this provider; ask its operator to remove it (clawline-server devices remove)"
        case .pairTimeout: "no admin decided within 5 minutes; run clawline pair again"
        case .unknown(let other): "pairing failed (\(other))"
        }
    }
}
