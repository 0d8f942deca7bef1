import ClawlineProtocol
import Foundation

/// The documentation's marked examples (README.md and docs/*.md), compiled with the SDK:
/// `ReadmeExampleTests` checks that every block marked `<!-- compiled: … -->` appears in such a
/// file verbatim (indentation aside), and runs them, so the documents show code that builds and works.
enum ReadmeExamples {
    /// What an app or server has around the SDK: a socket.
    final class Socket {
        private(set) var sent: [String] = []
        private(set) var closedWith: Int?? = nil
        func send(text: String) { sent.append(text) }
        func close(code: Int?) { closedWith = code }
    }

    /// The "Using ClawlineProtocol in an app or a server" example of docs/sdk.md.
    static func appAndServer(
        socket: Socket, token: String, jwt: String, deviceId: DeviceId, received: String, bytes: [UInt8], httpBody: [UInt8],
        chatModel: some ServerFrameHandler, log: (String) -> Void
    ) async throws {
        // Build and send a frame (canonical JSON: sorted keys, no white space).
        let hello = ClientFrame.auth(Auth(token: token, deviceId: deviceId, lastMessageId: .value("s_789")))
        socket.send(text: hello.encodedText())

        // Decode a received frame in one pass: parse, check every rule of the spec, build the value.
        switch ServerFrame.decode(text: received) {
        case .decoded(let frame, _):  // and warnings, e.g. an unknown value of an open enum
            try await frame.dispatch(to: chatModel)  // a ServerFrameHandler, one method per message
        case let rejected:
            log(rejected.rejectionReason ?? "")  // not JSON, not a frame, unknown type or every issue
        }

        // Results whose fields depend on one field are enums: an invalid combination cannot be built.
        let paired = ServerFrame.pairResult(.success(token: jwt, userId: "user_3f2e"))
        let denied = ServerFrame.pairResult(.failure(reason: .pairDenied))

        // A server answers a rejected client frame with the spec's error code and close behaviour.
        let result = ClientFrame.decode(bytes)
        if let answer = result.answer {  // e.g. invalid_message; or, for bytes that are not JSON, no error and close 1002
            if let code = result.errorCode {  // an ErrorCode; nil when the answer sends nothing
                socket.send(text: ServerFrame.error(ErrorMessage(code: code, message: result.rejectionReason ?? "")).encodedText())
            }
            if answer.closesConnection { socket.close(code: answer.closeCode) }
        }

        // HTTP bodies decode in one call, with the same validation.
        let version = try VersionInfo.decode(httpBody)  // throws WireDecodingError: not JSON, or every issue

        // Tables as code.
        print(ErrorCode.authFailed.httpStatus ?? 0)  // 401: one enum for error.code, HTTP error bodies and the tables
        print(Clawline.Constants.pingInterval)  // 30 seconds
        print(Clawline.RateLimits.message)  // 5 per second per device, rate_limited, stays open
        print(Clawline.Constants.maxFrameBytes)  // 1048576
        print(Clawline.sessionRules.phases.count)  // phases, transitions, guards, correlations, uniqueness, runs

        socket.send(text: paired.encodedText())
        socket.send(text: denied.encodedText())
        socket.send(text: String(version.protocolVersion))
    }

    /// The "Session rules at run time" example of docs/sdk.md: a server's connection.
    static func sessionRules(socket: Socket, message: ClientMessage) {
        // One engine per protocol, one machine per connection (its clock is injectable for tests).
        let engine = SessionEngine(rules: Clawline.sessionRules, rateLimits: Clawline.RateLimits.all)
        var connection = SessionMachine(engine: engine)
        var device = RateLimiter()  // Clawline's limits are per device: share it across the device's sockets

        // Feed it every frame in both directions; it returns the rules a frame breaks.
        for violation in connection.observe(ClientFrame.message(message), rateLimits: &device) {
            if let answer = violation.answer, let code = answer.code.flatMap(ErrorCode.init(rawValue:)) {
                socket.send(text: ServerFrame.error(ErrorMessage(code: code, message: violation.message)).encodedText())
                if answer.closesConnection { socket.close(code: answer.closeCode) }
            }
        }
        print(connection.phase ?? "", connection.flag("admin") as Any)  // "unauthenticated", nil (unknown)
    }
}
