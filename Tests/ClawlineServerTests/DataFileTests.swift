import Foundation
import Testing

@testable import ClawlineServer

/// The files that hold the provider's secrets are private from the start, and never replaced
/// behind the operator's back.
@Suite struct DataFileTests {
    func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-files-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    @Test func aNewSigningKeyIsPrivateAndAnExistingOneIsReadBack() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/signing-key"
        let key = try TokenAuthority.loadOrCreateKey(at: path)
        #expect(key.count == 32)
        #expect(try mode(path) == 0o600)
        #expect(try TokenAuthority.loadOrCreateKey(at: path) == key)
    }

    @Test func aKeyThatCannotBeReadIsAnErrorAndIsNotReplaced() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Something at the key's path that cannot be read as a file (a directory: root reads any file).
        let path = directory + "/signing-key"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect {
            try TokenAuthority.loadOrCreateKey(at: path)
        } throws: { error in
            "\(error)".contains("cannot be read") && "\(error)".contains(path)
        }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)

        let short = directory + "/short-key"
        #expect(FileManager.default.createFile(atPath: short, contents: Data([1, 2, 3])))
        #expect(throws: ServerSetupError.self) { try TokenAuthority.loadOrCreateKey(at: short) }
        #expect(FileManager.default.contents(atPath: short) == Data([1, 2, 3]))
    }

    @Test func theDatabaseAndItsLogAreCreatedPrivate() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/clawline.sqlite"
        let store = try await SQLiteProviderStore.open(path: path)
        let device = DeviceRecord(deviceID: "d", userID: "u", claimedName: nil, deviceInfo: "{}", isAdmin: true, status: .approved, pairedAt: Date())
        try await store.save(device)
        #expect(try mode(path) == 0o600)
        #expect(try mode(path + "-wal") == 0o600)
        try await store.close()
    }

    @Test func aRemoteDatabaseIsEncryptedByDefault() throws {
        #expect(try PostgresProviderStore.Address("postgres://me@db.example.com/clawline").sslMode == "require")
        #expect(try PostgresProviderStore.Address("postgres://me@127.0.0.1:5432/clawline").sslMode == "disable")
        #expect(try PostgresProviderStore.Address("postgres://me@localhost/clawline").sslMode == "disable")
        #expect(try PostgresProviderStore.Address("postgres://me@db.example.com/clawline?sslmode=disable").sslMode == "disable")
    }
}
