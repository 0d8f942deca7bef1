import Testing

@testable import WireSpec

/// Misuse of the language features the Clawline contract needs (answers that send nothing,
/// conditional values, normalized and growing uniqueness, runs, unanswered limits) is rejected
/// with one located error each.
@Suite struct ContractLanguageDiagnosticTests {
    /// Only `notJSON` and `notAFrame` may send nothing, and then they must close; `malformedFrame` says what replaced it.
    @Test func answersThatSendNothing() {
        #expect(
            diagnostics(
                """
                protocol: {name: demo, title: Demo, version: 1}
                transport: {kind: websocket, path: /ws}
                validation:
                  errorCode: invalid_message
                  malformedFrame: {error: invalid_message, close: true, closeCode: 1002}
                  notJSON: {close: true}
                  notAFrame: {close: false, closeCode: 1002}
                errors: {invalid_message: {httpStatus: 400, closes: sometimes, closeCode: 1008}, payload_too_large: {httpStatus: 413}, \
                rate_limited: {httpStatus: 429}}
                messages:
                  client:
                    hello:
                      violation: {close: true, closeCode: 1008}
                      fields: {a: integer}
                """) == [
                    #"test.yaml:5:3: error: 'malformedFrame' in 'validation' is now two answers: 'notJSON' (bytes that are not JSON) and "#
                        + #"'notAFrame' (JSON that is not an object with a string tag)"#,
                    #"test.yaml:6:12: error: 'notJSON' in 'validation' has no 'error', so it sends nothing: it must close the connection with "#
                        + #"'close: true' and a 'closeCode'"#,
                    #"test.yaml:7:14: error: 'notAFrame' in 'validation' has no 'error', so it sends nothing: it must close the connection with "#
                        + #"'close: true' and a 'closeCode'"#,
                    #"test.yaml:12:18: error: missing required key 'error' in 'violation' in message 'client hello' (only 'notJSON' and "#
                        + #"'notAFrame' under 'validation' may close without sending an error)"#,
                ])
    }

    /// `then` names declared fields other than the tested ones, is not empty, does not contradict `forbid`, and its values fit the fields.
    @Test func conditionalValues() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      server:
                        update:
                          fields:
                            role: {type: string}
                            streaming: boolean
                            count: integer
                          rules:
                            - when: {role: user}
                              then: {streaming: "no", colour: red}
                            - when: {role: user}
                              then: {role: assistant}
                            - when: {role: user}
                              forbid: [streaming]
                              then: {streaming: false}
                            - when: {role: user}
                            - when: {role: user}
                              then: {}
                            - when: {role: user}
                              then: {streaming: "no", count: [1, 2]}
                    """) == [
                    #"test.yaml:14:35: error: rule 1 of message 'server update' names field 'colour', which message 'server update' does not "#
                        + #"declare"#,
                    #"test.yaml:16:11: error: rule 2 of message 'server update' names 'role' in both 'when' and 'then'; a rule cannot fix the "#
                        + #"field it tests"#,
                    #"test.yaml:19:11: error: rule 3 of message 'server update' both forbids 'streaming' and fixes its value in 'then'"#,
                    #"test.yaml:20:11: error: rule 4 of message 'server update' has none of 'require', 'forbid' and 'then'; say which fields the "#
                        + #"condition requires, forbids or fixes"#,
                    #"test.yaml:22:17: error: 'then' of rule 5 of message 'server update' is empty; give at least one field and value"#,
                    #"test.yaml:23:11: error: rule of message 'server update': the 'then' value on 'streaming' is a string, but the type is "#
                        + #"'boolean'"#,
                ])
    }

    /// `grows` is for string fields not in `sameFields`, `compare` needs `sameFields`, a run counts with an integer field of a real frame, and only
    /// limits on client frames carry an answer.
    @Test func uniquenessRunsAndRateLimits() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      client:
                        post: {fields: {id: string, body: string, tags: {type: array<string>, optional: true}}}
                      server:
                        reply: {fields: {id: string, body: string, n: integer, at: number}}
                        hello: {fields: {count: string, total: integer}}
                    session:
                      uniqueness:
                        grows_number: {frame: server reply, key: id, grows: [n]}
                        grows_same: {frame: server reply, key: id, sameFields: [body], grows: [body]}
                        compare_alone: {frame: client post, key: id, compare: normalized, final: {body: x}}
                        compare_bad: {frame: client post, key: id, sameFields: [body], compare: loose}
                        grows_unknown: {frame: server reply, key: id, grows: [text]}
                      runs:
                        count_text: {after: server hello, count: count, frame: server reply}
                        count_unknown: {after: server hello, count: size, frame: server reply, each: {colour: red}}
                        no_frame: {after: server hello, count: total}
                        bad_ref: {after: server goodbye, count: total, frame: server reply}
                    rateLimits:
                      replies: {frames: [server reply], limit: 2, window: 1s, answer: rate_limited}
                      posts: {frames: [client post], limit: 2, window: 1s}
                      mixed: {frames: [client post, server reply], limit: 2, window: 1s}
                    """) == [
                    #"test.yaml:13:5: error: 'grows' in uniqueness rule 'grows_number' names 'n', which is not a string field; only text can grow"#,
                    #"test.yaml:14:76: error: 'grows' in uniqueness rule 'grows_same' names 'body', which 'sameFields' also names; a field either "#
                        + #"stays the same or grows"#,
                    #"test.yaml:15:59: error: 'compare' in uniqueness rule 'compare_alone' says how 'sameFields' are compared, but the rule has "#
                        + #"no "# + #"'sameFields'"#,
                    #"test.yaml:16:77: error: 'compare' in uniqueness rule 'compare_bad' must be one of 'exact', 'normalized', found 'loose'"#,
                    #"test.yaml:17:59: error: uniqueness rule 'grows_unknown' names field 'text', which message 'server reply' does not declare"#,
                    #"test.yaml:19:5: error: 'count' in run 'count_text' names 'count', which is not an integer field of 'server hello'"#,
                    #"test.yaml:20:49: error: run 'count_unknown' names field 'size', which message 'server hello' does not declare"#,
                    #"test.yaml:20:83: error: run 'count_unknown' names field 'colour', which message 'server reply' does not declare"#,
                    #"test.yaml:21:15: error: missing required key 'frame' in run 'no_frame'"#,
                    #"test.yaml:22:22: error: 'after' in run 'bad_ref' names 'server goodbye', but there is no server message 'goodbye'"#,
                    #"test.yaml:24:67: error: rate limit 'replies' counts only server frames, which nobody answers; remove 'answer' (the server "#
                        + #"must not send more)"#,
                    #"test.yaml:25:10: error: missing required key 'answer' in rate limit 'posts'"#,
                    #"test.yaml:26:10: error: missing required key 'answer' in rate limit 'mixed'"#,
                ])
    }

    /// Named string types are distinct unless they opt out; `distinct` means nothing on other types.
    @Test func distinctNamedStringTypes() throws {
        let spec = try loadValid(
            preamble + """

                types:
                  Id: {type: string, prefix: i_}
                  Name: {type: string, maxBytes: 8, distinct: false}
                  When: {type: string, format: iso8601}
                  Other: {type: Id}
                messages:
                  client:
                    hello: {fields: {id: Id, name: Name, at: When, other: Other}}
                """)
        func alias(_ name: String) -> AliasType? {
            if case .alias(let alias)? = spec.type(named: name)?.kind { return alias }
            return nil
        }
        #expect(alias("Id")?.isDistinctString == true)
        #expect(alias("Name")?.isDistinctString == false, "opted out")
        #expect(alias("When")?.isDistinctString == false, "a date is a Date")
        #expect(alias("Other")?.isDistinctString == false, "an alias of a named type is a typealias of it")
        #expect(
            diagnostics(
                preamble + """

                    types:
                      Count: {type: integer, distinct: false}
                    messages:
                      client:
                        hello: {fields: {count: Count}}
                    """) == [#"test.yaml:6:26: error: 'distinct' in type 'Count' applies only to a named string type (type: string)"#])
    }

    /// A phase's `otherwiseFor` names client frames the phase refuses; a correlation's scope is one the language knows.
    @Test func phaseAnswersPerFrameAndCorrelationScopes() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      client:
                        auth: {fields: {token: string}}
                        decide: {fields: {id: string}}
                      server:
                        reply: {fields: {id: string}}
                    session:
                      phases:
                        start:
                          initial: true
                          client: [auth]
                          otherwise: invalid_message
                          otherwiseFor: {decide: invalid_message, auth: invalid_message, reply: invalid_message, decid: invalid_message}
                      correlations:
                        answers: {frame: server reply, field: id, answers: client decide, scope: socket}
                    """) == [
                    #"test.yaml:17:47: error: 'otherwiseFor' in phase 'start' names 'auth', which the phase allows in 'client'; only a frame "#
                        + #"the phase refuses can have an answer of its own"#,
                    #"test.yaml:17:70: error: 'otherwiseFor' in phase 'start' names 'reply', but there is no client message 'reply'"#,
                    #"test.yaml:17:94: error: 'otherwiseFor' in phase 'start' names 'decid', but there is no client message 'decid' "#
                        + #"(did you mean 'decide'?)"#,
                    #"test.yaml:19:78: error: 'scope' in correlation 'answers' must be one of 'connection', 'peer', found 'socket'"#,
                ])
    }

    /// A union message has no fields of its own, its tag is not the frame's, its cases have distinct names and real
    /// types, and its case types let the frame's tag through.
    @Test func messagesWhoseFieldsDependOnOneField() {
        #expect(
            diagnostics(
                preamble + """

                    types:
                      Yes: {fields: {token: string, type: string}}
                      No: {fields: {reason: string}, unknownFields: reject}
                      Maybe: {fields: {why: string}}
                    messages:
                      server:
                        result:
                          tag: ok
                          cases:
                            true: {type: Yes, name: good}
                            false: {type: No, name: good}
                          fields: {extra: string}
                        same_tag:
                          tag: type
                          cases: {a: Maybe}
                        bad_case:
                          tag: ok
                          cases:
                            true: {type: Maybe, label: fine}
                            false: Nope
                    """) == [
                    #"test.yaml:6:33: error: type 'Yes' declares the frame's tag field 'type', but it is a case of message 'server result'"#,
                    #"test.yaml:15:9: error: type 'No' rejects unknown fields, but as a case of message 'server result' its objects carry the "#
                        + #"frame's 'type'; use 'rejectFields' for the keys it must not carry"#,
                    #"test.yaml:15:16: error: case 'false' of message 'server result' is named 'good', like case 'true'; case names must differ"#,
                    #"test.yaml:16:7: error: message 'server result' is a union of cases ('tag' and 'cases'), so 'fields' belongs on its case "#
                        + #"types, not on the message"#,
                    #"test.yaml:18:7: error: 'tag' in message 'server same_tag' is 'type', the frame's own tag field; name the field that selects "#
                        + #"the case"#,
                    #"test.yaml:23:29: error: unknown key 'label' in case 'true' of message 'server bad_case'"#,
                    #"test.yaml:24:16: error: undefined type 'Nope' in case 'false' of message 'server bad_case' (did you mean 'No'?)"#,
                ])
    }
}
