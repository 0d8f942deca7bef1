import ClawlineProtocol
import Foundation
import Testing

@testable import ClawlineClient

@Suite("Client building blocks")
struct UnitTests {
    @Test("Where no transport is built (Linux without NIOTransport), connecting fails and names the trait")
    func unavailableTransportSaysWhichTraitToEnable() async throws {
        do {
            _ = try await UnavailableTransport().connect(to: URL(string: "ws://127.0.0.1:9/ws")!)
            Issue.record("expected transportUnavailable")
        } catch let error as ClawlineClientError {
            guard case .transportUnavailable(let detail) = error else { throw error }
            #expect(detail.contains("NIOTransport"))
            #expect(error.description.hasPrefix("Cannot connect: no WebSocket transport"))
        }
        // This build enables the trait, so the default is the NIO transport.
        #expect(PlatformTransport.make() is WSClientTransport)
    }

    @Test("Backoff doubles from the spec's initial delay to its maximum, with jitter")
    func backoff() {
        var backoff = ReconnectBackoff(random: { 0.25 })
        let delays = (0..<7).map { _ in backoff.nextDelay() }
        let jitter = Clawline.Constants.reconnectMaxJitter * 0.25
        #expect(delays == [1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) + jitter })
        backoff.reset()
        #expect(backoff.nextDelay() == .seconds(1) + jitter)
    }

    @Test("Token claims are read from the JWT payload")
    func claims() {
        let payload = Data(#"{"sub":"user-1","deviceId":"dev-1","isAdmin":true,"iat":1704672000,"exp":1736208000}"#.utf8)
        let encoded = payload.base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        let claims = TokenClaims(token: "eyJhbGciOiJIUzI1NiJ9.\(encoded).c2ln")
        #expect(claims?.userId == "user-1" && claims?.deviceId == "dev-1" && claims?.isAdmin == true)
        #expect(claims?.expiresAt == Date(timeIntervalSince1970: 1_736_208_000))
        #expect(TokenClaims(token: "not a token") == nil)
    }

    @Test("The device id is created once and read back; credentials round-trip and clear")
    func identityAndCredentials() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-identity-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let secrets = FileSecretStore(directory: directory)
        let first = try StoredDeviceIdentity(store: secrets)
        #expect(UUID(uuidString: first.deviceId.rawValue) != nil && first.deviceId.rawValue == first.deviceId.rawValue.lowercased())
        #expect(try StoredDeviceIdentity(store: secrets).deviceId == first.deviceId)
        let mode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("device-id").path)[.posixPermissions]
        #expect(mode as? Int == 0o600)
        let store = CredentialStore(store: secrets)
        let credentials = Credentials(serverURL: URL(string: "http://127.0.0.1:8080")!, deviceId: first.deviceId, token: "t", userId: "u")
        try store.save(credentials)
        #expect(try store.load() == credentials)
        try store.clear()
        #expect(try store.load() == nil)
    }

    @Test("A CaptureWriter writes envelopes wire validate reads, keeping frames exactly")
    func captureEnvelope() throws {
        let capture = CaptureWriter()
        let observe = capture.observer(label: "phone")
        observe(
            ObservedFrame(
                connection: "chat-1", direction: .client, text: #"{"type":"typing","active":true}"#, timestamp: Date(timeIntervalSince1970: 1)))
        observe(ObservedFrame(connection: "chat-1", direction: .server, text: "not json", timestamp: Date(timeIntervalSince1970: 2)))
        #expect(
            capture.text == """
                {"session":"phone/chat-1","dir":"client","ts":1000,"frame":{"type":"typing","active":true}}
                {"session":"phone/chat-1","dir":"server","ts":2000,"frame":"not json"}

                """)
        #expect(capture.frameCount == 2)
    }
}
