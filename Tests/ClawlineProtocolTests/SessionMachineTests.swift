import ClawlineProtocol
import Testing
import WireRuntime
import WireTestSupport

/// WireRuntime's session machine, driven by the generated Clawline tables, over generated frames:
/// what a server or client gets from it.
@Suite struct SessionMachineTests {
    let engine = SessionEngine(rules: Clawline.sessionRules, rateLimits: Clawline.RateLimits.all)
    let clock = ManualClock()

    func machine() -> SessionMachine { SessionMachine(engine: engine, clock: clock) }

    /// A machine past a successful `auth_result`, with `isAdmin` as given.
    func authenticated(isAdmin: Bool? = nil) -> SessionMachine {
        var machine = machine()
        #expect(machine.observe(ClientFrame.auth(Auth(token: "t", deviceId: "d"))).isEmpty)
        let result = AuthResult.success(userId: "u", sessionId: "s", replayCount: 0, replayTruncated: false, isAdmin: isAdmin)
        #expect(machine.observe(ServerFrame.authResult(result)).isEmpty)
        return machine
    }

    func message(_ id: ClientMessageId, _ content: String, attachments: Nullable<[ClawlineProtocol.Attachment]> = .absent) -> ClientFrame {
        .message(ClientMessage(id: id, content: content, attachments: attachments))
    }

    @Test func aMessageBeforeAuthenticationIsAnsweredAsThePhaseSays() throws {
        var machine = machine()
        let violations = machine.observe(message("c_1", "hi"))
        let violation = try #require(violations.first)
        #expect(violations.count == 1)
        #expect(violation.rule == .phase)
        #expect(violation.code == "auth_failed")
        #expect(violation.answer == ViolationAnswer(code: "auth_failed", closesConnection: true, closeCode: 1008))
        #expect(violation.message == "not allowed in phase 'unauthenticated', where the client may send pair_request, auth")
        #expect(machine.phase == "unauthenticated")
    }

    @Test func aPairDecisionBeforeAuthenticationIsInvalidMessageAndKeepsTheSocket() throws {
        var machine = machine()
        let violations = machine.observe(ClientFrame.pairDecision(PairDecision(deviceId: "d2", approve: false)))
        let violation = try #require(violations.first)
        #expect(violations.count == 1)
        #expect(violation.rule == .phase && violation.code == "invalid_message")
        #expect(violation.answer == ViolationAnswer(code: "invalid_message"))
        #expect(machine.phase == "unauthenticated")
        #expect(machine.observe(ClientFrame.auth(Auth(token: "t", deviceId: "d"))).isEmpty)
    }

    /// An error may name a message the device sent on the connection this one took over: a warning
    /// (the check sees one connection), never an error, and nothing to answer.
    @Test func anErrorNamingAMessageNotSentHereIsAWarning() throws {
        var machine = authenticated()
        #expect(machine.observe(message("c_1", "hi")).isEmpty)
        #expect(machine.observe(ServerFrame.error(ErrorMessage(code: .serverError, message: "failed", messageId: "c_1"))).isEmpty)
        let violations = machine.observe(ServerFrame.error(ErrorMessage(code: .serverError, message: "failed", messageId: "c_0")))
        let violation = try #require(violations.first)
        #expect(violations.count == 1)
        #expect(violation.severity == .warning && violation.rule == .correlation && violation.ruleName == "error_names_message")
        #expect(violation.answer == nil)
        #expect(violation.path == JSONPath.root.appending("messageId"))
    }

    @Test func authenticationMovesThePhaseAndSetsTheAdminFlag() {
        #expect(machine().phase == "unauthenticated")
        #expect(machine().flag("admin") == nil)
        let admin = authenticated(isAdmin: true)
        #expect(admin.phase == "authenticated")
        #expect(admin.flag("admin") == true)
        #expect(authenticated(isAdmin: nil).flag("admin") == nil)
    }

    @Test func aFailedAuthenticationClosesWithTheTransitionsCode() {
        var machine = machine()
        _ = machine.observe(ClientFrame.auth(Auth(token: "t", deviceId: "d")))
        #expect(machine.observe(ServerFrame.authResult(.failure(reason: .authFailed))).isEmpty)
        #expect(machine.phase == "closed")
        #expect(machine.closeCode == 1008)
    }

    @Test func aPairDecisionNeedsTheAdminFlagButNotAnUnknownOne() throws {
        var user = authenticated(isAdmin: false)
        let decision = ClientFrame.pairDecision(PairDecision(deviceId: "d2", approve: false))
        let violation = try #require(user.observe(decision).first)
        #expect(violation.rule == .guard)
        #expect(violation.ruleName == "admin_decides")
        #expect(violation.answer == ViolationAnswer(code: "invalid_message"))
        var unknown = authenticated(isAdmin: nil)
        #expect(unknown.observe(decision).isEmpty)
        var admin = authenticated(isAdmin: true)
        #expect(admin.observe(decision).isEmpty)
    }

    @Test func anAckMustAnswerAMessageTheClientSent() throws {
        var machine = authenticated()
        #expect(machine.observe(message("c_1", "hi")).isEmpty)
        #expect(machine.observe(ServerFrame.ack(Ack(id: "c_1"))).isEmpty)
        let violation = try #require(machine.observe(ServerFrame.ack(Ack(id: "c_2"))).first)
        #expect(violation.rule == .correlation)
        #expect(violation.answer == nil)
        #expect(violation.path == JSONPath.root.appending("id"))
    }

    @Test func aRetryMustRepeatItsContentAndAttachmentsAsValues() throws {
        var machine = authenticated()
        let image = ClawlineProtocol.Attachment.image(ImageAttachment(mimeType: .imagePng, data: "aGVsbG8="))
        #expect(machine.observe(message("c_1", "hi", attachments: .null)).isEmpty)
        #expect(machine.observe(message("c_1", "hi", attachments: .value([]))).isEmpty)
        #expect(machine.observe(message("c_1", "hi")).isEmpty)
        #expect(machine.observe(message("c_2", "pic", attachments: .value([image]))).isEmpty)
        // The same bytes without padding are the same attachment.
        let unpadded = ClawlineProtocol.Attachment.image(ImageAttachment(mimeType: .imagePng, data: "aGVsbG8"))
        #expect(machine.observe(message("c_2", "pic", attachments: .value([unpadded]))).isEmpty)
        let violation = try #require(machine.observe(message("c_1", "changed")).first)
        #expect(violation.rule == .uniqueness)
        #expect(violation.answer == ViolationAnswer(code: "invalid_message"))
    }

    @Test func messagesOverTheRateLimitAreAnsweredUntilTheWindowSlides() throws {
        var machine = authenticated()
        for index in 1...5 { #expect(machine.observe(message("c_\(index)", "m")).isEmpty) }
        let violation = try #require(machine.observe(message("c_6", "m")).first)
        #expect(violation.rule == .rateLimit)
        #expect(violation.answer == ViolationAnswer(code: "rate_limited"))
        clock.advance(by: .seconds(1))
        #expect(machine.observe(message("c_7", "m")).isEmpty)
    }

    @Test func aDevicesConnectionsCanShareOneRateLimiter() {
        var first = authenticated()
        var second = authenticated()
        var device = RateLimiter()
        for index in 1...3 { #expect(first.observe(message("c_a\(index)", "m"), rateLimits: &device).isEmpty) }
        for index in 1...2 { #expect(second.observe(message("c_b\(index)", "m"), rateLimits: &device).isEmpty) }
        #expect(second.observe(message("c_b3", "m"), rateLimits: &device).map(\.rule) == [.rateLimit])
    }

    @Test func aReconnectLaterSharesTheWindowsOnOneTimeBase() {
        let origin = clock.now
        let serverTime: @Sendable () -> Duration = { [clock] in origin.duration(to: clock.now) }
        func connection() -> SessionMachine {
            var machine = SessionMachine(engine: engine, now: serverTime)
            _ = machine.observe(ClientFrame.auth(Auth(token: "t", deviceId: "d")))
            _ = machine.observe(ServerFrame.authResult(.success(userId: "u", sessionId: "s", replayCount: 0, replayTruncated: false)))
            return machine
        }
        var device = RateLimiter()
        var first = connection()
        for index in 1...5 { #expect(first.observe(message("c_a\(index)", "m"), rateLimits: &device).isEmpty) }
        // Two seconds later the device reconnects: the old window has slid out on the shared time base.
        clock.advance(by: .seconds(2))
        var second = connection()
        for index in 1...5 { #expect(second.observe(message("c_b\(index)", "m"), rateLimits: &device).isEmpty) }
        #expect(second.observe(message("c_b6", "m"), rateLimits: &device).map(\.rule) == [.rateLimit])
    }

    @Test func oversizeAnswersCountTowardsTheirLimit() {
        var machine = authenticated()
        let oversize = [ErrorCode.payloadTooLarge.rawValue]
        #expect(machine.observe(message("c_1", "m"), answeredCodes: oversize).isEmpty)
        #expect(machine.observe(message("c_2", "m"), answeredCodes: oversize).isEmpty)
        let third = machine.observe(message("c_3", "m"), answeredCodes: oversize)
        #expect(third.map(\.ruleName) == ["oversize"])
        #expect(third.first?.answer?.closesConnection == true)
    }

    @Test func aReplayRunsBeforeAnythingLive() throws {
        var machine = machine()
        _ = machine.observe(ClientFrame.auth(Auth(token: "t", deviceId: "d")))
        let result = AuthResult.success(userId: "u", sessionId: "s", replayCount: 2, replayTruncated: false)
        #expect(machine.observe(ServerFrame.authResult(result)).isEmpty)
        let replayed = ServerMessage(id: "s_1", role: .user, content: "old", timestamp: 1, streaming: false, deviceId: "d")
        #expect(machine.observe(ServerFrame.message(replayed)).isEmpty)
        #expect(machine.finish().map(\.rule) == [.run])
        let violation = try #require(machine.observe(ServerFrame.typing(ServerTyping(active: true))).first)
        #expect(violation.rule == .run)
        #expect(machine.finish().isEmpty)
    }

    @Test func aStreamedAnswerMustGrowAndEndOnce() {
        var machine = authenticated()
        func snapshot(_ content: String, streaming: Bool) -> ServerFrame {
            .message(ServerMessage(id: "s_9", role: .assistant, content: content, timestamp: 1, streaming: streaming))
        }
        #expect(machine.observe(snapshot("Hel", streaming: true)).isEmpty)
        #expect(machine.observe(snapshot("Hello", streaming: true)).isEmpty)
        #expect(machine.observe(snapshot("Help", streaming: true)).map(\.rule) == [.uniqueness])
        #expect(machine.observe(snapshot("Help me", streaming: false)).isEmpty)
        #expect(machine.observe(snapshot("Help me!", streaming: false)).map(\.rule) == [.uniqueness])
    }

    @Test func rawJSONIsCheckedLikeAGeneratedFrame() {
        var machine = machine()
        var device = RateLimiter()
        let violations = machine.observe(json: Array(#"{"type":"typing","active":true}"#.utf8), from: .client, rateLimits: &device)
        #expect(violations.map(\.rule) == [.phase])
        #expect(machine.observe(json: Array("not json".utf8), from: .client, rateLimits: &device).isEmpty)
    }
}
