import Testing
import WireRuntime

@testable import WireSpec

/// One small inline spec per construct of the language.
@Suite struct LanguageConstructTests {
    @Test func protocolHeaderAndTransport() throws {
        let spec = try loadValid(
            """
            wire: 1
            protocol:
              name: chat
              title: Chat
              version: 3
              description: A chat protocol.
              keyStyle: snake_case
              tagField: kind
            transport: {kind: sse, path: /chat, method: POST, defaultPort: 7117, description: Events over SSE.}
            validation: {errorCode: bad}
            errors: {bad: {httpStatus: 400}}
            messages:
              server:
                token: {fields: {text_chunk: string}}
            """)
        #expect(spec.name == "chat")
        #expect(spec.title == "Chat")
        #expect(spec.version == 3)
        #expect(spec.description == "A chat protocol.")
        #expect(spec.keyStyle == .snakeCase)
        #expect(spec.tagField == "kind")
        #expect(spec.transport == Transport(kind: .sse, path: "/chat", method: "POST", defaultPort: 7117, description: "Events over SSE."))
        #expect(spec.defaultErrorCode == "bad")
        #expect(spec.sizeErrorCode == "bad", "the size code defaults to the error code")
    }

    @Test func fieldShorthandPresenceAndDefaults() throws {
        let spec = try loadValid(
            preamble + """

                messages:
                  client:
                    hello:
                      fields:
                        active: boolean
                        name: {type: string, optional: true, description: A name.}
                        cursor: {type: string, optional: true, nullable: true}
                        note: {type: string, nullable: true}
                        count: {type: integer, optional: true, default: 3, deprecated: true}
                """)
        let active = try #require(spec.field(.client, "hello", "active"))
        #expect(active.type == .boolean && active.required && !active.nullable)
        let name = try #require(spec.field(.client, "hello", "name"))
        #expect(!name.required && !name.nullable && name.description == "A name.")
        let cursor = try #require(spec.field(.client, "hello", "cursor"))
        #expect(!cursor.required && cursor.nullable)
        let note = try #require(spec.field(.client, "hello", "note"))
        #expect(note.required && note.nullable)
        let count = try #require(spec.field(.client, "hello", "count"))
        #expect(count.defaultValue == .integer(3) && count.deprecated)
    }

    @Test func everyConstraint() throws {
        let spec = try loadValid(
            preamble + """

                messages:
                  client:
                    c:
                      fields:
                        s: {type: string, minLength: 1, maxLength: 9, minBytes: 2, maxBytes: 64, notBlank: true, prefix: c_, pattern: "c_[a-z]+"}
                        u: {type: string, format: uuidv4}
                        b: {type: string, format: base64, maxDecodedBytes: 262144}
                        t: {type: integer, format: epochMillis, minimum: 0}
                        d: {type: string, format: iso8601}
                        v: {type: integer, const: 1}
                        n: {type: number, minimum: 0.5, maximum: 2}
                        a: {type: array<string>, minItems: 1, maxItems: 4}
                        m: {type: map<integer>, maxItems: 10}
                """)
        let s = try #require(spec.field(.client, "c", "s")).constraints
        #expect(s == Constraints(minLength: 1, maxLength: 9, minBytes: 2, maxBytes: 64, notBlank: true, prefix: "c_", pattern: "c_[a-z]+"))
        #expect(spec.field(.client, "c", "u")?.constraints.format == .uuidv4)
        #expect(spec.field(.client, "c", "b")?.constraints == Constraints(format: .base64, maxDecodedBytes: 262_144))
        #expect(spec.field(.client, "c", "t")?.constraints == Constraints(format: .epochMillis, minimum: 0))
        #expect(spec.field(.client, "c", "d")?.constraints.format == .iso8601)
        #expect(spec.field(.client, "c", "v")?.constraints.const == .integer(1))
        #expect(spec.field(.client, "c", "n")?.constraints == Constraints(minimum: 0.5, maximum: 2))
        #expect(spec.field(.client, "c", "a")?.type == .array(.string))
        #expect(spec.field(.client, "c", "a")?.constraints == Constraints(minItems: 1, maxItems: 4))
        #expect(spec.field(.client, "c", "m")?.type == .map(key: .string, value: .integer))
    }

    @Test func enumsClosedAndOpen() throws {
        let spec = try loadValid(
            preamble + """

                types:
                  Mime: {enum: [image/png, image/jpeg]}
                  Role:
                    description: Who wrote it.
                    open: true
                    enum:
                      user: A person.
                      assistant: The assistant.
                messages:
                  server:
                    m: {fields: {role: Role, mime: Mime}}
                """)
        guard case .enumeration(let mime) = spec.type(named: "Mime")?.kind,
            case .enumeration(let role) = spec.type(named: "Role")?.kind
        else {
            Issue.record("expected two enums")
            return
        }
        #expect(mime == EnumType(values: [.init(value: "image/png"), .init(value: "image/jpeg")], open: false))
        #expect(role.open)
        #expect(role.values == [.init(value: "user", description: "A person."), .init(value: "assistant", description: "The assistant.")])
    }

    @Test func unionsWithStringAndBooleanTags() throws {
        let spec = try loadValid(
            preamble + """

                types:
                  Image: {fields: {data: {type: string, format: base64}}}
                  Asset: {fields: {assetId: string}}
                  Attachment:
                    tag: type
                    cases: {image: Image, asset: Asset}
                  Success: {fields: {token: string}}
                  Failure: {fields: {reason: string}}
                  Outcome:
                    tag: success
                    open: false
                    cases: {true: Success, false: Failure}
                messages:
                  server:
                    m: {fields: {attachments: array<Attachment>, outcome: Outcome}}
                """)
        guard case .union(let attachment) = spec.type(named: "Attachment")?.kind,
            case .union(let outcome) = spec.type(named: "Outcome")?.kind
        else {
            Issue.record("expected two unions")
            return
        }
        #expect(attachment.tag == "type")
        #expect(attachment.cases.map(\.tagValue) == [.string("image"), .string("asset")])
        #expect(attachment.cases.map(\.type) == ["Image", "Asset"])
        #expect(!attachment.hasBooleanTag)
        #expect(outcome.hasBooleanTag)
        #expect(outcome.cases.map(\.tagValue) == [.bool(true), .bool(false)])
    }

    @Test func oneOfAliasesMapsAndFreeFormJSON() throws {
        let spec = try loadValid(
            preamble + """

                types:
                  DeviceId: {type: string, format: uuidv4, description: A device.}
                  Selector:
                    oneOf:
                      all: {type: string, const: "*"}
                      names: array<string>
                  Payload: {fields: {}, unknownFields: keep}
                messages:
                  client:
                    subscribe: {fields: {sessions: Selector, device: DeviceId, extra: json, costs: map<number>, payload: Payload}}
                """)
        guard case .oneOf(let selector) = spec.type(named: "Selector")?.kind,
            case .alias(let alias) = spec.type(named: "DeviceId")?.kind,
            case .object(let payload) = spec.type(named: "Payload")?.kind
        else {
            Issue.record("expected oneOf, alias and object")
            return
        }
        #expect(selector.variants.map(\.name) == ["all", "names"])
        #expect(selector.variants[0].constraints.const == .string("*"))
        #expect(selector.variants[1].type == .array(.string))
        #expect(alias == AliasType(type: .string, constraints: Constraints(format: .uuidv4)))
        #expect(payload.unknownFields == .keep)
        #expect(spec.field(.client, "subscribe", "extra")?.type == .json)
        #expect(spec.field(.client, "subscribe", "costs")?.type == .map(key: .string, value: .number))
    }

    @Test func messagesPerDirectionAndBoth() throws {
        let spec = try loadValid(
            preamble + """

                messages:
                  client:
                    message:
                      typeName: OutgoingMessage
                      description: Sent by the client.
                      fields: {id: {type: string, prefix: c_}}
                      examples:
                        - {type: message, id: c_1}
                  server:
                    message: {fields: {id: {type: string, prefix: s_}, role: string}}
                  both:
                    ping: {fields: {}}
                """)
        #expect(spec.messages(.client).map(\.tag) == ["message", "ping"])
        #expect(spec.messages(.server).map(\.tag) == ["message", "ping"])
        let outgoing = try #require(spec.message(MessageRef(direction: .client, tag: "message")))
        #expect(outgoing.typeName == "OutgoingMessage")
        #expect(outgoing.examples == [.object([.init(key: "type", value: .string("message")), .init(key: "id", value: .string("c_1"))])])
        #expect(spec.message(MessageRef(direction: .server, tag: "message"))?.shape.fields.map(\.name) == ["id", "role"])
        #expect(spec.message(MessageRef(direction: .server, tag: "ping"))?.declaredForBoth == true)
    }

    @Test func conditionalRulesBudgetsAndFieldPolicies() throws {
        let spec = try loadValid(
            preamble + """

                types:
                  Image: {fields: {data: {type: string, format: base64}}}
                messages:
                  server:
                    result:
                      violation: {error: invalid_message, close: true}
                      fields:
                        success: boolean
                        kind: string
                        token: {type: string, optional: true}
                        reason: {type: string, optional: true, violation: payload_too_large}
                      rules:
                        - when: {success: true}
                          require: [token]
                          forbid: [reason]
                          description: Success carries a token.
                        - when: {kind: [a, b]}
                          require: reason
                  client:
                    typing:
                      rejectFields: [role]
                      unknownFields: reject
                      fields: {active: boolean}
                    message:
                      fields: {content: string, images: {type: array<Image>, optional: true}}
                      rules:
                        - budget: total
                          sum: [content, images.data]
                          max: 327680
                """)
        let result = try #require(spec.message(MessageRef(direction: .server, tag: "result")))
        #expect(result.violation == Answer(errorCode: "invalid_message", close: true))
        #expect(result.shape.field(named: "reason")?.violation == Answer(errorCode: "payload_too_large"))
        guard case .conditional(let first) = result.shape.rules[0], case .conditional(let second) = result.shape.rules[1] else {
            Issue.record("expected conditional rules")
            return
        }
        #expect(first.when == [Condition(field: "success", values: [.bool(true)])])
        #expect(first.require == ["token"] && first.forbid == ["reason"])
        #expect(second.when == [Condition(field: "kind", values: [.string("a"), .string("b")])])
        let typing = try #require(spec.message(MessageRef(direction: .client, tag: "typing")))
        #expect(typing.shape.rejectFields == ["role"] && typing.shape.unknownFields == .reject)
        guard case .byteBudget(let budget) = spec.message(MessageRef(direction: .client, tag: "message"))?.shape.rules.first else {
            Issue.record("expected a byte budget")
            return
        }
        #expect(budget.name == "total" && budget.paths == ["content", "images.data"] && budget.max == 327_680)
    }

    @Test func errorCodesRateLimitsEndpointsAndConstants() throws {
        let spec = try loadValid(
            """
            protocol: {name: demo, title: Demo, version: 1}
            transport: {kind: websocket, path: /ws}
            validation: {errorCode: invalid_message}
            errors:
              invalid_message: {httpStatus: 400, closes: sometimes, closeCode: 1008, description: Bad frame., clientAction: Fix it.}
              rate_limited: {httpStatus: 429, closes: false}
              gone: {closes: true, closeCode: 1000}
            types:
              Version: {fields: {protocolVersion: integer}}
              AssetId: {type: string}
            messages:
              client:
                message: {fields: {id: string}}
            rateLimits:
              message: {frames: [client message], limit: 5, window: 1s, scope: device, answer: {error: rate_limited, close: false}, \
              clientAction: Queue.}
              oversize: {violations: [invalid_message], limit: 2, window: 1m, answer: {error: invalid_message, close: true, closeCode: 1009}}
              queue: {frames: client message, limit: 100, scope: provider, answer: rate_limited}
            endpoints:
              version: {method: GET, path: /version, response: {json: Version}}
              upload:
                method: POST
                path: /upload
                auth: bearer
                request: {multipart: {file: {description: The bytes.}}}
                response: {status: 201, json: Version}
                errors: [invalid_message]
              download:
                method: GET
                path: /download/{assetId}
                auth: bearer
                parameters: {assetId: AssetId}
                response: {binary: true}
            constants:
              ping: {duration: 30s}
              short: {duration: 250ms}
              life: {duration: 365d}
              upload: {bytes: 100MiB, description: Largest upload.}
              small: {bytes: 64KiB}
              plain: {bytes: 4096}
              replay: {count: 500}
              ratio: {number: 1.5}
              name: {string: clawline}
            """)
        #expect(spec.errorCodes.map(\.code) == ["invalid_message", "rate_limited", "gone"])
        #expect(spec.errorCode("invalid_message")?.closes == .sometimes)
        #expect(spec.errorCode("invalid_message")?.clientAction == "Fix it.")
        #expect(spec.errorCode("rate_limited")?.closes == .never)
        #expect(spec.errorCode("gone")?.closes == .always)
        #expect(spec.closes(Answer(errorCode: "gone")) && !spec.closes(Answer(errorCode: "invalid_message")))

        #expect(spec.rateLimits[0].counts == .frames([MessageRef(direction: .client, tag: "message")]))
        #expect(spec.rateLimits[0].windowMilliseconds == 1000 && spec.rateLimits[0].scope == .device)
        #expect(spec.rateLimits[1].counts == .violations(["invalid_message"]))
        #expect(spec.rateLimits[1].answer == Answer(errorCode: "invalid_message", close: true, closeCode: 1009))
        #expect(spec.rateLimits[2].windowMilliseconds == nil && spec.rateLimits[2].scope.rawValue == "provider")

        #expect(spec.endpoints.map(\.name) == ["version", "upload", "download"])
        #expect(spec.endpoints[0].auth == .none && spec.endpoints[0].response.status == 200)
        #expect(spec.endpoints[1].request == .multipart([Endpoint.Part(name: "file", description: "The bytes.")]))
        #expect(spec.endpoints[1].response.status == 201)
        #expect(spec.endpoints[2].parameters.map(\.name) == ["assetId"])
        #expect(spec.endpoints[2].response.body == .binary(contentType: nil))

        let values = Dictionary(uniqueKeysWithValues: spec.constants.map { ($0.name, $0.value) })
        #expect(values["ping"] == .integer(30_000))
        #expect(values["short"] == .integer(250))
        #expect(values["life"] == .integer(365 * 86_400_000))
        #expect(values["upload"] == .integer(104_857_600))
        #expect(values["small"] == .integer(65_536))
        #expect(values["plain"] == .integer(4096))
        #expect(values["replay"] == .integer(500))
        #expect(values["ratio"] == .number(1.5))
        #expect(values["name"] == .string("clawline"))
        #expect(spec.constants.first { $0.name == "upload" }?.written == "100MiB")
    }

    @Test func sessionRules() throws {
        let spec = try loadValid(
            preamble + """

                messages:
                  client:
                    auth: {fields: {token: string}}
                    message: {fields: {id: string, content: string}}
                  server:
                    auth_result: {fields: {success: boolean, isAdmin: {type: boolean, optional: true}}}
                    ack: {fields: {id: string}}
                    event: {fields: {id: string, streaming: boolean}}
                session:
                  flags:
                    admin: The device is an admin.
                  phases:
                    start:
                      initial: true
                      client: [auth]
                      server: auth_result
                      otherwise: {error: invalid_message, close: true}
                      otherwiseFor: {message: {error: invalid_message}}
                    chat:
                      client: [message]
                      server: [ack, event]
                    closed: {}
                  transitions:
                    - on: server auth_result
                      when: {success: true}
                      to: chat
                      set: {admin: isAdmin}
                    - {on: server auth_result, when: {success: false}, to: closed, closeCode: 1008}
                  guards:
                    admins_only: {frame: client message, requires: admin, otherwise: invalid_message}
                  correlations:
                    ack_answers: {frame: server ack, field: id, answers: client message}
                    event_names: {frame: server event, field: id, answers: client message, scope: peer}
                  uniqueness:
                    retry: {frame: client message, key: id, sameFields: [content], otherwise: invalid_message}
                    final: {frame: server event, key: id, final: {streaming: false}}
                """)
        let session = try #require(spec.session)
        #expect(session.phases.map(\.name) == ["start", "chat", "closed"])
        #expect(session.initialPhase?.name == "start")
        #expect(session.phases[0].allowed(.client) == ["auth"] && session.phases[0].allowed(.server) == ["auth_result"])
        #expect(session.phases[0].otherwise == Answer(errorCode: "invalid_message", close: true))
        #expect(session.phases[0].answer(toClient: "message") == Answer(errorCode: "invalid_message"))
        #expect(session.phases[0].answer(toClient: "other") == session.phases[0].otherwise)
        #expect(session.correlations.map(\.scope) == [.connection, .peer])
        let runtime = spec.sessionRuleSet
        #expect(runtime.phases[0].answer(toClient: "message") == ViolationAnswer(code: "invalid_message"))
        #expect(runtime.correlations[1].scope == .peer)
        #expect(session.phases[2].allowedClient.isEmpty && session.phases[2].allowedServer.isEmpty)
        #expect(session.transitions[0].on == MessageRef(direction: .server, tag: "auth_result"))
        #expect(session.transitions[0].set == [SessionRules.FlagAssignment(flag: "admin", field: "isAdmin")])
        #expect(session.transitions[1].closeCode == 1008)
        #expect(session.guards[0].requires == "admin")
        #expect(session.correlations[0].answersField == "id", "answersField defaults to field")
        #expect(session.uniqueness[0].sameFields == ["content"])
        #expect(session.uniqueness[1].final == [Condition(field: "streaming", values: [.bool(false)])])
    }

    @Test func flows() throws {
        let spec = try loadValid(
            preamble + """

                messages:
                  client:
                    hello: {fields: {}}
                  server:
                    welcome: {fields: {}}
                flows:
                  start:
                    title: Starting
                    description: How a session starts.
                    participants: [app, provider]
                    steps:
                      - {from: app, to: provider, frame: client hello}
                      - {from: provider, to: app, frame: server welcome, label: welcome!}
                      - {note: Done.}
                  plain:
                    steps:
                      - {from: client, to: server, label: anything}
                """)
        #expect(spec.flows.map(\.name) == ["start", "plain"])
        #expect(spec.flows[0].participants == ["app", "provider"] && spec.flows[0].title == "Starting")
        #expect(spec.flows[0].steps[0].frame == MessageRef(direction: .client, tag: "hello"))
        #expect(spec.flows[0].steps[1].label == "welcome!" && spec.flows[0].steps[2].note == "Done.")
        #expect(spec.flows[1].participants == ["client", "server"] && spec.flows[1].title == "plain")
    }
}
