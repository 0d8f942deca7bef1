import Testing
import WireRuntime

/// The tables generated from Tests/Fixtures/everything.yaml.
@Suite struct FixtureTablesTests {
    @Test func identityAndAnswers() {
        #expect(Everything.name == "everything" && Everything.title == "Everything" && Everything.version == 3)
        #expect(Everything.transportKind == "sse" && Everything.transportPath == "/events" && Everything.defaultPort == 7117)
        #expect(Everything.defaultAnswer == ViolationAnswer(code: "bad_frame"))
        #expect(Everything.sizeAnswer == ViolationAnswer(code: "too_big"))
        #expect(Everything.notJSONAnswer == .closeSilently(closeCode: 1002))
        #expect(Everything.notJSONAnswer.code == nil && !Everything.notJSONAnswer.sendsError)
        #expect(Everything.notAFrameAnswer == ViolationAnswer(code: "bad_frame"))
    }

    @Test func errorCodes() {
        #expect(ErrorCode.allCases.map(\.rawValue) == ["bad_frame", "too_big", "slow_down", "gone"])
        #expect(ErrorCode.badFrame.httpStatus == 400)
        #expect(ErrorCode.badFrame.closeBehavior == .sometimes && ErrorCode.badFrame.closeCode == 1008)
        #expect(ErrorCode.gone.closeBehavior == .always && ErrorCode.gone.httpStatus == nil)
        #expect(ErrorCode.slowDown.closeBehavior == .never)
        #expect(ErrorCode.badFrame.clientAction == "Fix the frame.")
        #expect(ErrorCode(rawValue: "teapot") == .unknown("teapot"), "a code this version does not know is kept")
        #expect(ErrorCode.unknown("teapot").closeBehavior == .sometimes && ErrorCode.unknown("teapot").httpStatus == nil)
    }

    @Test func constants() {
        #expect(Everything.Constants.heartbeat == .seconds(15))
        #expect(Everything.Constants.maxBlob == 16_384)
        #expect(Everything.Constants.maxItems == 100)
        #expect(Everything.Constants.ratio == 0.75)
        #expect(Everything.Constants.product == "Everything")
    }

    @Test func rateLimits() {
        #expect(
            Everything.RateLimits.posts
                == RateLimitRule(
                    name: "posts", counts: .frames([FrameKey(.client, "post")]), limit: 10, window: .seconds(1), scope: .device,
                    answer: ViolationAnswer(code: "slow_down"), clientAction: "Wait."
                ))
        #expect(Everything.RateLimits.posts.answerCode == .slowDown)
        #expect(Everything.RateLimits.oversize.counts == .violations([.tooBig]) && Everything.RateLimits.oversize.scope == .connection)
        #expect(Everything.RateLimits.sessions.scope == RateLimitScope(rawValue: "server"))
        #expect(Everything.RateLimits.oversize.answer == ViolationAnswer(code: "too_big", closesConnection: true, closeCode: 1009))
        #expect(Everything.RateLimits.sessions.window == nil)
        #expect(Everything.RateLimits.sessions.answer == ViolationAnswer(code: "gone", closesConnection: true, closeCode: 1000))
        #expect(Everything.RateLimits.updates.counts == .frames([FrameKey(.server, "update")]) && Everything.RateLimits.updates.answer == nil)
        #expect(Everything.RateLimits.all.map(\.name) == ["posts", "oversize", "sessions", "updates"])
    }

    @Test func endpoints() {
        #expect(
            Everything.Endpoints.status == HTTPEndpoint(name: "status", method: .get, path: "/status", requiresBearerToken: false, errorCodes: []))
        #expect(Everything.Endpoints.upload.method == .put)
        #expect(Everything.Endpoints.upload.requiresBearerToken && Everything.Endpoints.upload.errorCodes == [.tooBig, .slowDown])
        #expect(Everything.Endpoints.uploadPath(itemId: "a b/c", slot: "ü~") == "/items/a%20b%2Fc/blob/%C3%BC~")
        // Query parameters follow the path, percent-encoded; an optional one left out is not written.
        #expect(Everything.Endpoints.searchPath(itemId: "i", slug: "a&b=c") == "/items/i?slug=a%26b%3Dc")
        #expect(Everything.Endpoints.searchPath(itemId: "i", slug: "s", limit: "5") == "/items/i?slug=s&limit=5")
    }

    @Test func sessionRules() {
        let rules = Everything.sessionRules
        #expect(rules.initialPhase == "start")
        #expect(rules.phase(named: "start")?.allows(FrameKey(.client, "hello")) == true)
        #expect(rules.phase(named: "start")?.allows(FrameKey(.client, "post")) == false)
        #expect(rules.phase(named: "start")?.otherwise == ViolationAnswer(code: "gone", closesConnection: true, closeCode: 1000))
        #expect(rules.transitions.map(\.to) == ["open", "start", "start"])
        #expect(rules.transitions.map(\.from) == [[], [], ["open"]], "a transition may apply in some phases only")
        #expect(rules.transitions[0].setFlags == ["greeted": "wants_color"])
        #expect(rules.transitions[1].when == [SessionRuleSet.Condition("level", ["error"])] && rules.transitions[1].closeCode == 1000)
        #expect(rules.guards.map(\.requiredFlag) == ["greeted"])
        #expect(rules.correlations.first?.answers == FrameKey(.client, "ping"))
        #expect(rules.uniqueness.map(\.name) == ["post_ids", "final_updates"])
        #expect(rules.uniqueness.map(\.comparison) == [.normalized, .exact])
        #expect(rules.uniqueness[1].grows == ["detail"])
        #expect(
            rules.runs == [
                SessionRuleSet.Run(
                    name: "echoes", after: FrameKey(.client, "ping"), when: [SessionRuleSet.Condition("seq", [1, 2])], countField: "seq",
                    frame: FrameKey(.server, "ping"), each: [SessionRuleSet.Condition("seq", [0, 1, 2])], otherwise: nil
                )
            ])
    }
}
