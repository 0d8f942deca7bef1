import ArgumentParser
import ClawlineClient
import ClawlineProtocol
import Foundation

/// Where this terminal device keeps its id, credentials and conversation.
struct StateOptions: ParsableArguments {
    @Option(help: "The directory of this device's id, token and conversation (default: clawline in the user's config directory).")
    var stateDir: String?

    /// The state directory: `--state-dir`, else `$XDG_CONFIG_HOME/clawline`, else `~/.config/clawline`.
    var directory: URL {
        if let stateDir { return URL(fileURLWithPath: stateDir) }
        if let config = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"], !config.isEmpty {
            return URL(fileURLWithPath: config).appendingPathComponent("clawline")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config/clawline")
    }

    /// The device's state, read from the directory.
    func load() throws -> DeviceState { try DeviceState(directory: directory) }
}

/// A device's state on disk: files of mode 0600 in a 0700 directory.
struct DeviceState {
    let directory: URL
    let identity: StoredDeviceIdentity
    let credentials: CredentialStore

    init(directory: URL) throws {
        self.directory = directory
        let secrets = FileSecretStore(directory: directory)
        identity = try StoredDeviceIdentity(store: secrets)
        credentials = CredentialStore(store: secrets)
    }

    var conversationStore: FileConversationStore { FileConversationStore(url: directory.appendingPathComponent("conversation.json")) }

    /// The stored credentials; fails with what to do when the device has not paired.
    func requireCredentials() throws -> Credentials {
        guard let credentials = try credentials.load() else {
            throw ClientFailure("this device is not paired yet: run `clawline pair --server http://HOST:PORT --name NAME` first")
        }
        return credentials
    }

    /// What the device says about itself while pairing.
    static var deviceInfo: DeviceInfo {
        #if os(macOS)
            let platform = "macOS"
        #elseif os(Linux)
            let platform = "Linux"
        #else
            let platform = "other"
        #endif
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return DeviceInfo(
            platform: platform, model: "terminal", osVersion: "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)",
            appVersion: "clawline \(Clawline.Constants.protocolVersion)")
    }

    /// The certificate authorities this device trusts for its provider besides the system's
    /// (copied there by `clawline pair --ca-file`), if any.
    var trustedCAFile: String? {
        let path = directory.appendingPathComponent("trusted-ca.pem").path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Keeps a copy of the PEM file `caFile` as the authorities this device trusts.
    func trust(caFile: String) throws {
        let pem: Data
        do {
            pem = try Data(contentsOf: URL(fileURLWithPath: caFile))
        } catch {
            throw ClientFailure("--ca-file \(caFile) could not be read: \(error.localizedDescription)")
        }
        guard String(decoding: pem, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw ClientFailure("--ca-file \(caFile) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try pem.write(to: directory.appendingPathComponent("trusted-ca.pem"))
    }

    /// The WebSocket transport, trusting the device's authorities.
    var transport: any WebSocketTransport { WSClientTransport(trustedCAFile: trustedCAFile) }

    /// The provider's HTTP endpoints at `url`, trusting the device's authorities.
    func http(_ url: URL) -> any ProviderHTTP { ProviderHTTPClient(baseURL: url, exchange: NIOHTTPExchange(trustedCAFile: trustedCAFile)) }

    /// A chat service for the paired device.
    func chatService(_ credentials: Credentials) -> ChatService {
        ChatService(
            serverURL: credentials.serverURL, deviceId: identity.deviceId, store: conversationStore, transport: transport,
            http: http(credentials.serverURL))
    }

    /// Connects the chat service; a refused token clears the credentials and says to pair again.
    func connect(_ chat: ChatService, _ credentials: Credentials) async throws {
        do {
            try await chat.connect(token: credentials.token, lastMessageId: nil)
        } catch let error as ClawlineClientError {
            if error.requiresPairing { try? self.credentials.clear() }
            throw ClientFailure(error)
        }
    }
}
