import Foundation
import Testing

@testable import WireSpec

/// `Spec/clawline.yaml` is clean and says what seed 002 and the provider's test requirements say.
@Suite struct ClawlineSpecTests {
    static let specPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Spec/clawline.yaml").path

    let spec: ProtocolSpec

    init() throws {
        let result = try SpecLoader.check(contentsOf: Self.specPath)
        #expect(result.diagnostics.map(\.description) == [])
        spec = try result.get()
    }

    @Test func everyMessageOfEachDirection() {
        #expect(spec.messages(.client).map(\.tag) == ["pair_request", "auth", "pair_decision", "message", "typing"])
        #expect(spec.messages(.server).map(\.tag) == ["pair_result", "pair_approval_request", "auth_result", "message", "ack", "typing", "error"])
    }

    @Test func everyElementHasADescription() {
        var missing: [String] = []
        for type in spec.types where type.description == nil { missing.append("type \(type.name)") }
        for message in spec.messages {
            if message.description == nil { missing.append("message \(message.direction) \(message.tag)") }
            for field in message.shape.fields where field.description == nil {
                missing.append("field \(message.tag).\(field.name)")
            }
        }
        for type in spec.types {
            if case .object(let shape) = type.kind {
                for field in shape.fields where field.description == nil { missing.append("field \(type.name).\(field.name)") }
            }
        }
        for code in spec.errorCodes where code.description == nil || code.clientAction == nil { missing.append("error \(code.code)") }
        for limit in spec.rateLimits where limit.description == nil || limit.clientAction == nil { missing.append("rate limit \(limit.name)") }
        for endpoint in spec.endpoints where endpoint.description == nil { missing.append("endpoint \(endpoint.name)") }
        for constant in spec.constants where constant.description == nil { missing.append("constant \(constant.name)") }
        #expect(missing == [])
    }

    @Test func errorCodesWithStatusCloseBehaviourAndCloseCode() {
        let table = spec.errorCodes.map {
            "\($0.code) \($0.httpStatus.map(String.init) ?? "-") \($0.closes.rawValue) \($0.closeCode.map(String.init) ?? "-")"
        }
        #expect(
            table == [
                "auth_failed 401 always 1008",
                "token_revoked 403 always 1008",
                "invalid_message 400 sometimes 1008",
                "payload_too_large 413 sometimes 1008",
                "asset_not_found 404 never -",
                "rate_limited 429 sometimes 1008",
                "session_replaced - always 1000",
                "upload_failed_retryable 503 never -",
                "server_error 500 sometimes 1011",
            ])
        #expect(spec.notJSON == Answer(errorCode: nil, close: true, closeCode: 1002), "not JSON: close 1002, send nothing")
        #expect(spec.notAFrame == Answer(errorCode: "invalid_message"), "JSON without a type: invalid_message, stays open")
        #expect(spec.resolved(spec.notAFrameAnswer).closesConnection == false)
    }

    @Test func protocolVersionIsTheIntegerOneAndOnlyItClosesTheSocket() throws {
        for tag in ["pair_request", "auth"] {
            let message = try #require(spec.message(MessageRef(direction: .client, tag: tag)))
            let field = try #require(message.shape.field(named: "protocolVersion"))
            #expect(field.type == .integer && field.required && !field.nullable)
            #expect(field.constraints.const == .integer(1))
            #expect(field.violation == Answer(errorCode: "invalid_message", close: true))
            #expect(message.violation == nil, "other broken fields of \(tag) keep the socket open")
        }
    }

    @Test func claimedNameIsOptionalAndTheTokenIsTheProvidersBusiness() throws {
        for ref in [MessageRef(direction: .client, tag: "pair_request"), MessageRef(direction: .server, tag: "pair_approval_request")] {
            let field = try #require(spec.message(ref)?.shape.field(named: "claimedName"))
            #expect(!field.required)
        }
        let token = try #require(spec.message(MessageRef(direction: .client, tag: "auth"))?.shape.field(named: "token"))
        #expect(token.type == .string && token.constraints.isEmpty)
    }

    @Test func reasonsAreTheSeedsReasons() {
        func values(_ name: String) -> [String] {
            guard case .enumeration(let values) = spec.type(named: name)?.kind else { return [] }
            return values.values.map(\.value)
        }
        #expect(values("AuthFailureReason") == ["auth_failed", "token_revoked", "device_not_approved", "token_expired"])
        #expect(values("PairFailureReason") == ["pair_rejected", "pair_denied", "pair_timeout"])
        #expect(values("ErrorCode") == spec.errorCodes.map(\.code), "the error frame's codes are the error table")
        #expect(spec.field(.server, "error", "code")?.type == .named("ErrorCode"))
    }

    @Test func clientMessageConstraints() throws {
        let message = try #require(spec.message(MessageRef(direction: .client, tag: "message")))
        #expect(message.shape.field(named: "content")?.constraints == Constraints(minLength: 1, maxBytes: 65_536))
        #expect(message.shape.field(named: "attachments")?.constraints.maxItems == 4)
        let budgets = message.shape.rules.compactMap { rule -> String? in
            guard case .byteBudget(let budget) = rule else { return nil }
            return "\(budget.paths.joined(separator: "+")) <= \(budget.max)"
        }
        #expect(budgets == ["attachments.data <= 262144", "content+attachments.data <= 327680"])
        guard case .alias(let id) = spec.type(named: "ClientMessageId")?.kind else {
            Issue.record("ClientMessageId is an alias")
            return
        }
        #expect(id.constraints.prefix == "c_")
    }

    @Test func rateLimits() {
        let table = spec.rateLimits.map { limit -> String in
            let window = limit.windowMilliseconds.map { "/\($0)ms" } ?? " at once"
            guard let answer = limit.answer else { return "\(limit.name) \(limit.limit)\(window) per \(limit.scope) unanswered" }
            let close = spec.closes(answer) ? "closes" : "stays open"
            return "\(limit.name) \(limit.limit)\(window) per \(limit.scope) \(answer.errorCode ?? "-") \(close)"
        }
        #expect(
            table == [
                "pair_request 5/60000ms per device rate_limited closes",
                "auth 5/60000ms per device rate_limited closes",
                "message 5/1000ms per device rate_limited stays open",
                "typing 2/1000ms per device rate_limited stays open",
                "oversize 2/60000ms per device payload_too_large closes",
                "assistant_typing 2/1000ms per device unanswered",
                "pending_pairings 100 at once per provider rate_limited closes",
            ])
    }

    @Test func sessionRulesGateFramesBeforeAuthentication() throws {
        let session = try #require(spec.session)
        let start = try #require(session.initialPhase)
        #expect(start.allowedClient == ["pair_request", "auth"])
        #expect(start.otherwise == Answer(errorCode: "auth_failed", close: true))
        #expect(session.guards.first { $0.frame == MessageRef(direction: .client, tag: "pair_decision") }?.requires == "admin")
        #expect(session.phase(named: "closed")?.otherwise == Answer(errorCode: "auth_failed", close: true))
        #expect(session.correlations.map(\.name) == ["ack_answers_message", "error_names_message"])
        #expect(session.uniqueness.map(\.name) == ["client_message_retry", "server_event_stream"])
        #expect(session.uniqueness.map(\.comparison) == [.normalized, .normalized])
        #expect(session.uniqueness[1].grows == ["content"])
        #expect(session.runs.map { "\($0.after) \($0.count) \($0.frame)" } == ["server auth_result replayCount server message"])
    }

    @Test func endpointsAndConstants() {
        #expect(
            spec.endpoints.map { "\($0.method) \($0.path) \($0.auth.rawValue)" } == [
                "GET /version none", "POST /upload bearer", "GET /download/{assetId} bearer",
            ])
        #expect(spec.endpoints[1].request == .multipart([Endpoint.Part(name: "file", description: "The file's bytes, with its content type.")]))
        let values = Dictionary(uniqueKeysWithValues: spec.constants.map { ($0.name, $0.value) })
        #expect(values["maxUploadBytes"] == .integer(100 * 1_048_576))
        #expect(values["pingInterval"] == .integer(30_000))
        #expect(values["pingTimeout"] == .integer(90_000))
        #expect(values["pongTimeout"] == .integer(90_000))
        #expect(values["maxFrameBytes"] == .integer(1_048_576))
        // The contract sets no frame size: the frame limit is the reference provider's own.
        #expect(spec.constants.filter(\.providerLimit).map(\.name) == ["maxFrameBytes"])
        #expect(values["upgradeRequiredStatus"] == .integer(426))
        #expect(values["uploadRetention"] == .integer(3_600_000))
        #expect(values["maxReplayEvents"] == .integer(500))
        #expect(values["tokenLifetime"] == .integer(365 * 86_400_000))
    }
}
