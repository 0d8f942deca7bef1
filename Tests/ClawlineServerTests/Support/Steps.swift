import ClawlineClient
import ClawlineProtocol
import Foundation
import Testing
import WireRuntime
import WireTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A paired device: its id, token and account.
struct PairedDevice: Sendable {
    var deviceID: DeviceId
    var token: String
    var userID: UserId
}

/// Steps the server tests share.
extension TestServer {
    static let deviceInfo = DeviceInfo(platform: "iOS", model: "iPhone 15")

    /// A new socket to the server, judged on the server's clock.
    func socket() -> TestSocket { TestSocket(url, clock: clock) }

    /// A new device id.
    static func newDeviceID() -> DeviceId { DeviceId(UUID().uuidString) }

    /// Pairs a device that is answered at once (the first device, or one known to the server).
    func pair(_ deviceID: DeviceId = TestServer.newDeviceID(), name: String = "Phone") async throws -> PairedDevice {
        let socket = socket()
        socket.send(.pairRequest(PairRequest(deviceId: deviceID, claimedName: name, deviceInfo: Self.deviceInfo)))
        guard case .pairResult(.success(let success)) = try await socket.next() else { throw TestFailure("pairing did not succeed") }
        socket.close()
        #expect(socket.violations.isEmpty)
        return PairedDevice(deviceID: deviceID, token: success.token, userID: success.userId)
    }

    /// Pairs a member device into `admin`'s account through the admin's socket.
    func approveMember(
        _ deviceID: DeviceId = TestServer.newDeviceID(), admin: PairedDevice, adminSocket: TestSocket
    ) async throws -> PairedDevice {
        let pairing = socket()
        pairing.send(.pairRequest(PairRequest(deviceId: deviceID, claimedName: "Tablet", deviceInfo: Self.deviceInfo)))
        guard case .pairApprovalRequest = try await adminSocket.next() else { throw TestFailure("expected an approval request") }
        adminSocket.send(.pairDecision(PairDecision(deviceId: deviceID, approve: true, userId: admin.userID)))
        guard case .pairResult(.success(let success)) = try await pairing.next() else { throw TestFailure("expected the token") }
        pairing.close()
        return PairedDevice(deviceID: deviceID, token: success.token, userID: success.userId)
    }

    /// Opens a socket and authenticates `device`, returning the socket and the `auth_result`.
    func connect(_ device: PairedDevice, lastMessageId: Nullable<String> = .absent) async throws -> (TestSocket, AuthSuccess) {
        let socket = socket()
        socket.send(.auth(Auth(token: device.token, deviceId: device.deviceID, lastMessageId: lastMessageId)))
        let frame = try await socket.next()
        guard case .authResult(.success(let success)) = frame else { throw TestFailure("authentication failed: \(frame)") }
        return (socket, success)
    }

    /// Reads frames until the final (`streaming: false`) assistant message and, when typing
    /// started the answer, the typing that ends it; returns every frame read.
    static func readAnswer(on socket: TestSocket) async throws -> [ServerFrame] {
        var frames: [ServerFrame] = []
        while true {
            let frame = try await socket.next()
            frames.append(frame)
            guard let message = frame.serverMessage, message.role == .assistant, !message.streaming else { continue }
            if frames.first == .typing(ServerTyping(active: true)) { frames.append(try await socket.next()) }
            return frames
        }
    }

    /// An HTTP request to the server: status, content type and body.
    func http(
        _ method: String, _ path: String, token: String? = nil, contentType: String? = nil, body: Data? = nil
    ) async throws -> (status: Int, contentType: String?, body: String) {
        let (data, response) = try await fetch(method, path, token: token, contentType: contentType, body: body)
        return (response.statusCode, response.value(forHTTPHeaderField: "Content-Type"), String(decoding: data, as: UTF8.self))
    }

    /// An HTTP request to the server: the body's bytes and the response's head.
    ///
    /// It goes over SwiftNIO (`NIOHTTPExchange`), never `URLSession`: on Linux, `URLSession`'s
    /// libdispatch event loop has crashed this test process (a bad pointer in
    /// `_dispatch_event_loop_drain`).
    func fetch(
        _ method: String, _ path: String, token: String? = nil, contentType: String? = nil, body: Data? = nil
    ) async throws -> (body: Data, response: HTTPURLResponse) {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        request.httpBody = body
        let (data, response) = try await NIOHTTPExchange().send(request)
        guard let http = response as? HTTPURLResponse else { throw TestFailure("not an HTTP response") }
        return (data, http)
    }
}

extension TestServer {
    static let boundary = "clawline-test-boundary"

    /// A `multipart/form-data` body with one part.
    static func multipart(field: String, mimeType: String, bytes: Data) -> Data {
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"f\"\r\n".utf8)
        body += Data("Content-Type: \(mimeType)\r\n\r\n".utf8)
        body += bytes
        body += Data("\r\n--\(boundary)--\r\n".utf8)
        return body
    }

    /// Uploads `bytes` as the `file` part.
    func upload(
        _ bytes: Data, mimeType: String = "image/png", field: String = "file", token: String?
    ) async throws -> (
        status: Int, contentType: String?, body: String
    ) {
        try await http(
            "POST", "/upload", token: token, contentType: "multipart/form-data; boundary=\(Self.boundary)",
            body: Self.multipart(field: field, mimeType: mimeType, bytes: bytes))
    }

    /// Waits (in real time, at most `timeout`) until `condition` holds.
    func eventually(timeout: Duration = .seconds(5), _ condition: () async throws -> Bool) async throws -> Bool {
        try await WireTestSupport.eventually(timeout: timeout, condition)
    }
}

extension ServerFrame {
    /// The frame as a server message, if it is one.
    var serverMessage: ServerMessage? {
        if case .message(let message) = self { return message }
        return nil
    }
}
