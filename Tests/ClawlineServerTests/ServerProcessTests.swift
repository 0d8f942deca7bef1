import ClawlineProtocol
import Foundation
import Testing
import WireRuntime

@testable import ClawlineServer

/// The `clawline-server` executable: how it starts, its operator commands, and that a crash loses
/// nothing acknowledged.
@Suite(.serialized) struct ServerProcessTests {
    func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("clawline-data-\(UUID().uuidString)").path
    }

    @Test func itSaysWhereItListensOnOneLineAndStopsOnSIGTERM() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try ServerProcess(["serve", "--port", "0", "--data-dir", data])
        let port = try await server.port()
        #expect(port > 0)
        #expect(server.standardOutput == "listening on http://127.0.0.1:\(port)\n")
        let key = try FileManager.default.attributesOfItem(atPath: data + "/signing-key")
        #expect((key[.posixPermissions] as? Int) == 0o600)
        #expect((key[.size] as? Int) == 32)
        let url = "ws://127.0.0.1:\(port)/ws"
        let deviceID = TestServer.newDeviceID()
        let pairing = TestSocket(url)
        pairing.send(.pairRequest(PairRequest(deviceId: deviceID, deviceInfo: DeviceInfo(platform: "Linux", model: "t"))))
        guard case .pairResult(.success(let paired)) = try await pairing.next() else { throw TestFailure("pairing failed") }
        let socket = TestSocket(url)
        socket.send(.auth(Auth(token: paired.token, deviceId: deviceID)))
        guard case .authResult(.success) = try await socket.next() else { throw TestFailure("auth failed") }
        let status = try await server.stop(with: SIGTERM)
        #expect(status == 0)
        #expect(try await socket.closeCode() == 1001)
    }

    @Test func aPublicAddressIsRefusedWithoutTheFlag() async throws {
        let run = try await ServerProcess.run(["serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", temporaryDirectory()])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--allow-insecure-public"))
        #expect(run.stderr.contains("without TLS") && run.stderr.contains("--tls-cert"))
    }

    @Test("a public address is allowed with TLS of the server's own, and still refused without it")
    func aPublicAddressWithTLSValidates() throws {
        let tls = ServerTLSFiles(certificateChainPath: "/etc/clawline/cert.pem", privateKeyPath: "/etc/clawline/key.pem")
        #expect(throws: Never.self) { try ClawlineServerConfiguration(host: "0.0.0.0", tls: tls, uploadsDirectory: "/tmp/u").validate() }
        #expect(throws: ServerSetupError.self) { try ClawlineServerConfiguration(host: "0.0.0.0", uploadsDirectory: "/tmp/u").validate() }
        #expect(throws: Never.self) {
            try ClawlineServerConfiguration(host: "10.0.0.2", allowInsecurePublic: true, uploadsDirectory: "/tmp/u").validate()
        }
    }

    @Test("TLS files that cannot be read stop the server with a message naming the flag and the file")
    func unreadableTLSFilesAreNamed() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let missing = data + "/no-such-cert.pem"
        let run = try await ServerProcess.run(["serve", "--port", "0", "--data-dir", data, "--tls-cert", missing, "--tls-key", missing])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--tls-cert \(missing)"), "\(run.stderr)")
        let only = try await ServerProcess.run(["serve", "--port", "0", "--data-dir", data, "--tls-cert", missing])
        #expect(only.status != 0 && only.stderr.contains("--tls-key"), "\(only.stderr)")
    }

    @Test func everyAcknowledgedMessageSurvivesAKillAndIsReplayedOnce() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try ServerProcess(["serve", "--port", "0", "--data-dir", data])
        let port = try await first.port()
        let url = "ws://127.0.0.1:\(port)/ws"
        let deviceID = TestServer.newDeviceID()
        let pairing = TestSocket(url)
        pairing.send(.pairRequest(PairRequest(deviceId: deviceID, deviceInfo: DeviceInfo(platform: "Linux", model: "test"))))
        guard case .pairResult(.success(let paired)) = try await pairing.next() else { throw TestFailure("pairing failed") }
        let socket = TestSocket(url)
        socket.send(.auth(Auth(token: paired.token, deviceId: deviceID)))
        guard case .authResult(.success) = try await socket.next() else { throw TestFailure("auth failed") }
        var acknowledged: [String] = []
        for number in 1...5 {
            socket.send(.message(ClientMessage(id: "c_\(number)", content: "message \(number)")))
            while true {
                if case .ack(let ack) = try await socket.next() {
                    acknowledged.append(ack.id.rawValue)
                    break
                }
            }
        }
        #expect(acknowledged == ["c_1", "c_2", "c_3", "c_4", "c_5"])
        try await first.stop(with: SIGKILL)

        let second = try ServerProcess(["serve", "--port", "0", "--data-dir", data])
        let again = TestSocket("ws://127.0.0.1:\(try await second.port())/ws")
        again.send(.auth(Auth(token: paired.token, deviceId: deviceID)))
        guard case .authResult(.success(let auth)) = try await again.next() else { throw TestFailure("auth failed after restart") }
        var replayed: [ServerMessage] = []
        for _ in 0..<auth.replayCount {
            if let message = try await again.next().serverMessage { replayed.append(message) }
        }
        let echoes = replayed.filter { $0.role == .user }.map(\.content)
        #expect(echoes == (1...5).map { "message \($0)" })
        #expect(Set(replayed.map(\.id)).count == replayed.count)
        #expect(again.violations.isEmpty)
        try await second.stop(with: SIGTERM)
    }

    @Test func operatorCommandsListAndRevokeDevicesOfARunningServer() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        let server = try ServerProcess(["serve", "--port", "0", "--data-dir", data])
        let url = "ws://127.0.0.1:\(try await server.port())/ws"
        let deviceID = TestServer.newDeviceID()
        let pairing = TestSocket(url)
        pairing.send(.pairRequest(PairRequest(deviceId: deviceID, claimedName: "Desk", deviceInfo: DeviceInfo(platform: "Linux", model: "t"))))
        guard case .pairResult(.success(let paired)) = try await pairing.next() else { throw TestFailure("pairing failed") }
        let socket = TestSocket(url)
        socket.send(.auth(Auth(token: paired.token, deviceId: deviceID)))
        guard case .authResult(.success) = try await socket.next() else { throw TestFailure("auth failed") }

        let list = try await ServerProcess.run(["devices", "list", "--data-dir", data])
        #expect(list.status == 0)
        #expect(
            list.stdout.contains(deviceID.rawValue) && list.stdout.contains("approved") && list.stdout.contains("admin")
                && list.stdout.contains("Desk"))
        let revoke = try await ServerProcess.run(["devices", "revoke", deviceID.rawValue, "--data-dir", data])
        #expect(revoke.status == 0 && revoke.stdout == "\(deviceID) is revoked\n")
        guard case .error(let error) = try await socket.next() else { throw TestFailure("expected token_revoked") }
        #expect(error.code == .tokenRevoked)
        let unknown = try await ServerProcess.run(["devices", "remove", "nope", "--data-dir", data])
        #expect(unknown.status != 0 && unknown.stderr.contains("no device has the id 'nope'"))
        try await server.stop(with: SIGTERM)
    }

    @Test func aDevicesClaimedNameCannotForgeALineOfTheList() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: data) }
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let store = try await SQLiteProviderStore.open(path: data + "/clawline.sqlite")
        let forged = "Phone\u{1B}[2K\r\nFAKE  approved  admin  user=x  name=y\\"
        try await store.save(
            DeviceRecord(deviceID: "d1", userID: "u", claimedName: forged, deviceInfo: "{}", isAdmin: false, status: .approved, pairedAt: Date()))
        try await store.close()
        let list = try await ServerProcess.run(["devices", "list", "--data-dir", data])
        #expect(list.status == 0)
        #expect(list.stdout.split(separator: "\n").count == 1, "one device, one line: \(list.stdout)")
        #expect(!list.stdout.contains("\u{1B}") && !list.stdout.contains("\r"))
        #expect(list.stdout.contains(#"name=Phone\u{1B}[2K\u{D}\u{A}FAKE  approved  admin  user=x  name=y\\"#))
    }
}
