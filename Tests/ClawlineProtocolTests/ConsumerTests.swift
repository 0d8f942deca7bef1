import ClawlineProtocol
import Foundation
import Testing

/// Uses ClawlineProtocol the way an app or a server does: build frames, encode, decode,
/// validate, answer rejected frames, and dispatch to handlers.
@Suite struct ConsumerTests {
    static let device: DeviceId = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
    static let user: UserId = "3f2e1d0c-9b8a-4f6e-9d4c-3b2a1f0e9d8c"

    // MARK: A client

    @Test func clientBuildsAndSendsFrames() throws {
        let pairing = ClientFrame.pairRequest(
            PairRequest(deviceId: Self.device, claimedName: "Kaywood", deviceInfo: DeviceInfo(platform: "iOS", model: "iPhone 15")))
        #expect(pairing.validate().isEmpty)
        #expect(
            pairing.encodedText()
                == #"{"claimedName":"Kaywood","deviceId":"\#(Self.device)","deviceInfo":{"model":"iPhone "#
                + #"15","platform":"iOS"},"protocolVersion":1,"type":"pair_request"}"#
        )

        let firstAuth = ClientFrame.auth(Auth(token: "jwt", deviceId: Self.device))
        #expect(!firstAuth.encodedText().contains("lastMessageId"), "an absent cursor is left out")
        let nullAuth = ClientFrame.auth(Auth(token: "jwt", deviceId: Self.device, lastMessageId: nil))
        #expect(nullAuth.encodedText().contains(#""lastMessageId":null"#), "nil is null, not absent")
        let resumed = ClientFrame.auth(Auth(token: "jwt", deviceId: Self.device, lastMessageId: .value("s_789")))
        #expect(resumed.encodedText().contains(#""lastMessageId":"s_789""#))

        let chat = ClientFrame.message(
            ClientMessage(
                id: "c_1", content: "Check this",
                attachments: .value([
                    .image(ImageAttachment(mimeType: .imagePng, data: "iVBORw0KGgo=")),
                    .asset(AssetAttachment(assetId: "a_7c9e6679-7425-40de-944b-e07fc1f90ae7")),
                ])))
        #expect(chat.validate().isEmpty)
        #expect(ClientFrame.decode(chat.encoded()).frame == chat)
    }

    @Test("Bytes decode alike from any collection, contiguous or not, from a buffer and from text; so do bad bytes")
    func bytesDecodeAlikeWhateverHoldsThem() throws {
        let frame = ClientFrame.message(ClientMessage(id: "c_1", content: "café 😀"))
        let bytes = frame.encoded()
        var results = [
            ClientFrame.decode(bytes), ClientFrame.decode(bytes[...]), ClientFrame.decode(Data(bytes)),
            ClientFrame.decode(bytes.lazy.map { $0 }), ClientFrame.decode(text: frame.encodedText()),
        ]
        results.append(bytes.withUnsafeBufferPointer { ClientFrame.decode($0) })
        for result in results { #expect(result.frame == frame, "\(result.rejectionReason ?? "")") }

        let truncated = Array(bytes.dropLast())
        for result in [ClientFrame.decode(truncated.lazy.map { $0 }), truncated.withUnsafeBufferPointer { ClientFrame.decode($0) }] {
            guard case .notJSON = result else {
                Issue.record("a truncated frame is not JSON, got \(result)")
                continue
            }
        }
    }

    @Test func resultMessagesAreEnumsSoInvalidCombinationsCannotBeBuilt() throws {
        let paired = ServerFrame.pairResult(.success(token: "jwt", userId: Self.user))
        #expect(paired.encodedText() == #"{"success":true,"token":"jwt","type":"pair_result","userId":"\#(Self.user)"}"#)
        #expect(paired.validate().isEmpty)
        let denied = ServerFrame.pairResult(.failure(reason: .pairDenied))
        #expect(denied.encodedText() == #"{"reason":"pair_denied","success":false,"type":"pair_result"}"#)
        #expect(ServerFrame.decode(denied.encoded()).frame == denied)

        let session = AuthResult.success(userId: Self.user, sessionId: "sess_1", replayCount: 2, replayTruncated: false)
        #expect(
            JSONWriter.string(session.jsonValue())
                == #"{"replayCount":2,"replayTruncated":false,"sessionId":"sess_1","success":true,"type":"auth_result","userId":"\#(Self.user)"}"#)
        guard
            case .success(let details)? = ServerFrame.decode(text: JSONWriter.string(session.jsonValue())).frame.flatMap({ frame -> AuthResult? in
                if case .authResult(let result) = frame { return result } else { return nil }
            })
        else {
            Issue.record("an auth_result success decodes as .success")
            return
        }
        #expect(details.replayCount == 2 && details.historyReset == nil && details.isAdmin == nil)

        let mixed = ServerFrame.decode(text: #"{"type":"pair_result","success":false,"reason":"pair_denied","token":"jwt"}"#)
        #expect(mixed.issues.map(\.message) == ["'token' is not allowed here"])
    }

    @Test func clientCatchesItsOwnMistakesBeforeSending() {
        let bad = ClientFrame.message(ClientMessage(id: "s_1", content: String(repeating: "x", count: 70_000)))
        #expect(bad.validate().map { "\($0.path) \($0.rule) \($0.code)" } == ["$.id prefix invalid_message", "$.content maxBytes payload_too_large"])
        let approve = ClientFrame.pairDecision(PairDecision(deviceId: Self.device, approve: true))
        #expect(approve.validate().map(\.message) == ["missing 'userId' (required when approve is true)"])
    }

    /// Routes every server frame through the dispatcher, as `ChatServicing` does.
    actor ChatModel: ServerFrameHandler {
        var timeline: [ServerEventId: String] = [:]
        var streaming: Set<ServerEventId> = []
        var acknowledged: [ClientMessageId] = []
        var events: [String] = []

        func handlePairResult(_ message: PairResult) async throws {
            switch message {
            case .success(let paired): events.append("paired as \(paired.userId)")
            case .failure(let failed): events.append("pairing failed: \(failed.reason.rawValue)")
            }
        }
        func handlePairApprovalRequest(_ message: PairApprovalRequest) async throws { events.append("approve? \(message.claimedName ?? "unnamed")") }
        func handleAuthResult(_ message: AuthResult) async throws {
            switch message {
            case .success(let session): events.append("auth true replay \(session.replayCount)")
            case .failure(let failure): events.append("auth false \(failure.reason.rawValue)")
            }
        }
        func handleMessage(_ message: ServerMessage) async throws {
            timeline[message.id] = message.content
            if message.streaming { streaming.insert(message.id) } else { streaming.remove(message.id) }
        }
        func handleAck(_ message: Ack) async throws { acknowledged.append(message.id) }
        func handleTyping(_ message: ServerTyping) async throws { events.append("typing \(message.active)") }
        func handleError(_ message: ErrorMessage) async throws { events.append("error \(message.code.rawValue)") }
        func handleUnknownFrame(tag: String, json: JSONValue) async throws { events.append("unknown \(tag)") }
    }

    @Test func clientRoutesServerFramesThroughTheDispatcher() async throws {
        let model = ChatModel()
        let incoming = [
            #"{"type":"auth_result","success":true,"userId":"\#(Self.user)","sessionId":"sess_1","replayCount":1,"replayTruncated":false,"#
                + #""historyReset":false}"#,
            #"{"type":"ack","id":"c_1"}"#,
            #"{"type":"typing","role":"assistant","active":true}"#,
            #"{"type":"message","id":"s_2","role":"assistant","content":"Hi","timestamp":1704672000000,"streaming":true}"#,
            #"{"type":"message","id":"s_2","role":"assistant","content":"Hi there","timestamp":1704672000000,"streaming":false}"#,
            #"{"type":"presence","online":true}"#,
            #"{"type":"error","code":"rate_limited","message":"slow down"}"#,
        ]
        for text in incoming {
            let result = ServerFrame.decode(text: text)
            let frame = try #require(result.frame, "\(result.rejectionReason ?? "")")
            try await frame.dispatch(to: model)
        }
        #expect(await model.timeline == ["s_2": "Hi there"])
        #expect(await model.streaming.isEmpty)
        #expect(await model.acknowledged == ["c_1"])
        #expect(await model.events == ["auth true replay 1", "typing true", "unknown presence", "error rate_limited"])
    }

    // MARK: A server

    /// What a server sends back for a rejected frame: an `error` frame built from the decode result
    /// (none when the answer sends nothing), and the close code when the socket closes.
    func answer(_ text: String) -> (error: ServerFrame?, close: Int?)? {
        let result = ClientFrame.decode(text: text)
        guard let answer = result.answer else { return nil }
        let error = answer.code.map { ServerFrame.error(ErrorMessage(code: ErrorCode(rawValue: $0), message: result.rejectionReason ?? "")) }
        return (error, answer.closesConnection ? answer.closeCode : nil)
    }

    @Test func serverAnswersEveryRejectedFrameWithTheSpecsCode() throws {
        #expect(answer(#"{"type":"typing","active":true}"#) == nil)

        let badVersion = try #require(answer(#"{"type":"auth","protocolVersion":2,"token":"t","deviceId":"\#(Self.device)"}"#))
        #expect(badVersion.close == 1008, "a wrong protocolVersion closes the socket")
        #expect(
            badVersion.error?.encodedText()
                == #"{"code":"invalid_message","message":"client auth: $.protocolVersion: must be 1, found 2","type":"error"}"#)

        let blankCursor = try #require(answer(#"{"type":"auth","protocolVersion":1,"token":"t","deviceId":"\#(Self.device)","lastMessageId":" "}"#))
        #expect(blankCursor.close == nil, "other broken fields of auth keep the socket open")
        #expect(answer(#"{"type":"auth","protocolVersion":1,"token":"","deviceId":"\#(Self.device)"}"#) == nil, "the token is the server's business")

        let tooLarge = try #require(answer(#"{"type":"message","id":"c_1","content":"\#(String(repeating: "y", count: 65_537))"}"#))
        #expect(tooLarge.close == nil)
        guard case .error(let error)? = tooLarge.error else { return }
        #expect(error.code == .payloadTooLarge)

        let garbage = try #require(answer("{not json"))
        #expect(garbage.close == 1002 && garbage.error == nil, "malformed JSON closes with 1002 and sends nothing")
        let untyped = try #require(answer(#"{"active":true}"#))
        #expect(untyped.close == nil)
        guard case .error(let untypedError)? = untyped.error else { return }
        #expect(untypedError.code == .invalidMessage)
        let unknown = try #require(answer(#"{"type":"subscribe"}"#))
        #expect(unknown.close == nil)
        guard case .error(let unknownError)? = unknown.error else { return }
        #expect(unknownError.message == "unknown client message type 'subscribe'")
    }

    @Test func tablesAreCode() {
        #expect(ErrorCode.sessionReplaced.closeCode == 1000)
        #expect(ErrorCode.authFailed.httpStatus == 401)
        #expect(ErrorCode.allCases.count == 9)
        #expect(Clawline.Endpoints.upload.method == .post && Clawline.Endpoints.upload.errorCodes.contains(.payloadTooLarge))
        #expect(Clawline.RateLimits.message.scope == .device && Clawline.RateLimits.message.answerCode == .rateLimited)
        #expect(Clawline.Constants.pingInterval == .seconds(30))
        #expect(Clawline.Constants.ackTimeout == .seconds(5))
        #expect(Clawline.Constants.maxUploadBytes == 100 * 1024 * 1024)
        #expect(Clawline.RateLimits.message.limit == 5 && Clawline.RateLimits.message.window == .seconds(1))
        #expect(Clawline.RateLimits.pairRequest.answer?.closesConnection == true)
        #expect(Clawline.RateLimits.typing.answer?.closesConnection == false)
        #expect(Clawline.RateLimits.assistantTyping.answer == nil, "nobody answers the server")
        #expect(Clawline.Endpoints.downloadPath(assetId: "a_1") == "/download/a_1")
        #expect(Clawline.Endpoints.upload.requiresBearerToken && !Clawline.Endpoints.version.requiresBearerToken)
        #expect(Clawline.sessionRules.phase(named: "unauthenticated")?.allows(FrameKey(.client, "message")) == false)
        #expect(
            Clawline.sessionRules.phase(named: "unauthenticated")?.otherwise
                == ViolationAnswer(code: "auth_failed", closesConnection: true, closeCode: 1008))
    }

    @Test func httpErrorBodiesCarryTheErrorType() throws {
        let body = HttpError(code: .authFailed, message: "The token is not valid.")
        #expect(JSONWriter.string(body.jsonValue()) == #"{"code":"auth_failed","message":"The token is not valid.","type":"error"}"#)
        let decoded = try JSONDecoder().decode(HttpError.self, from: Data(#"{"type":"error","code":"payload_too_large","message":"Too big."}"#.utf8))
        #expect(decoded.code == .payloadTooLarge && decoded.type == "error")
        #expect(throws: DecodingError.self, "a body without \"type\": \"error\" is not an error body") {
            try JSONDecoder().decode(HttpError.self, from: Data(#"{"code":"payload_too_large","message":"Too big."}"#.utf8))
        }
    }

    @Test func httpBodiesDecodeInOneCall() throws {
        #expect(try VersionInfo.decode(Array(#"{"protocolVersion":1}"#.utf8)) == VersionInfo(protocolVersion: 1))
        let asset = try UploadedAsset.decode(
            Data(#"{"assetId":"a_7c9e6679-7425-40de-944b-e07fc1f90ae7","mimeType":"image/png","size":5242880}"#.utf8))
        #expect(
            asset.size == 5_242_880
                && asset.encoded() == Array(#"{"assetId":"a_7c9e6679-7425-40de-944b-e07fc1f90ae7","mimeType":"image/png","size":5242880}"#.utf8))
        let error = try HttpError.decode(Array(#"{"type":"error","code":"asset_not_found","message":"No such asset."}"#.utf8))
        #expect(error.code == .assetNotFound && error.code.httpStatus == 404)
        do {
            _ = try VersionInfo.decode(Array("<html>".utf8))
            Issue.record("an HTML body is not a VersionInfo")
        } catch {
            #expect(error.syntaxError != nil && error.issues.isEmpty)
        }
        do {
            _ = try VersionInfo.decode(Array(#"{"protocolVersion":0}"#.utf8))
            Issue.record("protocolVersion 0 is below the minimum")
        } catch {
            #expect(error.issues.map { "\($0.path) \($0.rule)" } == ["$.protocolVersion minimum"])
        }
    }

    @Test func codableInteroperates() throws {
        let message = ServerMessage(id: "s_1", role: .assistant, content: "Hi", timestamp: 1_704_672_000_000, streaming: false)
        let data = try JSONEncoder().encode(message)
        #expect(try JSONDecoder().decode(ServerMessage.self, from: data) == message)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(
                ServerMessage.self, from: Data(#"{"type":"message","id":"x","role":"user","content":"","timestamp":0,"streaming":false}"#.utf8))
        }
    }
}
