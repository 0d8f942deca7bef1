import Foundation

/// Small secrets kept across launches (the device id, the token), by name.
public protocol SecretStore: Sendable {
    /// The value stored under `name`, or `nil` when there is none.
    func read(_ name: String) throws -> Data?
    /// Stores `value` under `name`, replacing what was there.
    func write(_ value: Data, as name: String) throws
    /// Removes the value stored under `name`, if any.
    func remove(_ name: String) throws
}

/// Secrets as files of a directory: the directory is created with mode 0700 and every file is
/// written atomically with mode 0600. The portable default.
public struct FileSecretStore: SecretStore {
    /// The directory the files live in.
    public let directory: URL

    /// A store in `directory` (created on the first write).
    public init(directory: URL) {
        self.directory = directory
    }

    public func read(_ name: String) throws -> Data? {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw ClawlineClientError.storage("cannot read \(url.path): \(error.localizedDescription)")
        }
    }

    public func write(_ value: Data, as name: String) throws {
        try PrivateFile.write(value, to: directory.appendingPathComponent(name))
    }

    public func remove(_ name: String) throws {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do {
            try FileManager.default.removeItem(at: url)
        } catch {
            throw ClawlineClientError.storage("cannot remove \(url.path): \(error.localizedDescription)")
        }
    }
}

/// Writes files only their owner can read.
enum PrivateFile {
    /// Writes `data` to `url` atomically (a temporary file renamed over it) with mode 0600,
    /// creating the directory with mode 0700.
    static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
            guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteUnknown)
            }
            // rename(2) replaces the old file atomically: a reader sees the old bytes or the new.
            guard rename(temporary.path, url.path) == 0 else {
                let reason = String(cString: strerror(errno))
                try? FileManager.default.removeItem(at: temporary)
                throw ClawlineClientError.storage("cannot write \(url.path): \(reason)")
            }
        } catch let error as ClawlineClientError {
            throw error
        } catch {
            throw ClawlineClientError.storage("cannot write \(url.path): \(error.localizedDescription)")
        }
    }
}

extension SecretStore where Self == FileSecretStore {
    /// The platform's default store: the keychain where there is one, else 0600 files in `directory`.
    public static func platformDefault(directory: URL) -> any SecretStore {
        #if canImport(Security)
            KeychainSecretStore()
        #else
            FileSecretStore(directory: directory)
        #endif
    }
}
