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

    /// A chat service for the paired device.
    func chatService(_ credentials: Credentials) -> ChatService {
        ChatService(serverURL: credentials.serverURL, deviceId: identity.deviceId, store: conversationStore)
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
