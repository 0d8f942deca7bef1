import Testing

@testable import WireSpec

/// Every class of error gives one exact, located diagnostic; all problems of a file come in one run.
@Suite struct DiagnosticTests {
    @Test func unknownKeyWithSuggestion() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      client:
                        pair_request:
                          fields:
                            claimedName: {type: string, maxbytes: 64}
                    """) == ["test.yaml:9:37: error: unknown key 'maxbytes' in field 'claimedName' (did you mean 'maxBytes'?)"])
    }

    @Test func unknownTopLevelKey() {
        #expect(
            diagnostics(
                preamble + """

                    mesages: {}
                    """) == [
                    "test.yaml:1:1: error: missing required key 'messages' in the spec",
                    "test.yaml:5:1: error: unknown key 'mesages' in the spec (did you mean 'messages'?)",
                ])
    }

    @Test func wrongValueType() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      client:
                        hello:
                          fields:
                            name: {type: string, maxLength: long, optional: maybe}
                            tags: {type: string, pattern: [a, b]}
                    """) == [
                    "test.yaml:9:41: error: expected an integer for 'maxLength' in field 'name', found a string",
                    "test.yaml:9:57: error: expected true or false for 'optional' in field 'name', found a string",
                    "test.yaml:10:39: error: expected a string for 'pattern' in field 'tags', found a list",
                ])
    }

    @Test func undefinedType() {
        #expect(
            diagnostics(
                preamble + """

                    types:
                      DeviceInfo: {fields: {model: string}}
                    messages:
                      client:
                        hello:
                          fields:
                            info: DeviceInfoo
                            list: array<Strin>
                    """) == [
                    "test.yaml:11:15: error: undefined type 'DeviceInfoo' in field 'info' (did you mean 'DeviceInfo'?)",
                    "test.yaml:12:15: error: undefined type 'Strin' in field 'list' (did you mean 'string'?)",
                ])
    }

    @Test func malformedTypeExpression() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      client:
                        hello: {fields: {list: "array<string"}}
                    """) == [
                    "test.yaml:7:28: error: malformed type 'array<string' in field 'list': write a built-in type (string, integer, number, "
                        + "boolean, " + "json), array<T>, map<T>, map<K, V> or the name of a type under 'types'"
                ])
    }

    @Test func duplicateMessageTagInOneDirection() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      client:
                        auth: {fields: {token: string}}
                        auth: {fields: {token: string}}
                      server:
                        auth: {fields: {ok: boolean}}
                      both:
                        auth: {fields: {}}
                    """) == [
                    "test.yaml:8:5: error: duplicate message tag 'auth' in direction client (first defined at line 7)",
                    "test.yaml:12:5: error: duplicate message tag 'auth' in direction client: already declared under 'client' at line 7",
                    "test.yaml:12:5: error: duplicate message tag 'auth' in direction server: already declared under 'server' at line 10",
                ])
    }

    @Test func badConstraints() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      client:
                        hello:
                          fields:
                            name: {type: string, maxBytes: -1}
                            size: {type: integer, minimum: 5, maximum: 1}
                            count: {type: integer, maxLength: 4}
                            blob: {type: string, maxDecodedBytes: 10}
                            id: {type: string, pattern: "[a-"}
                            when: {type: string, format: date}
                    """) == [
                    "test.yaml:9:40: error: 'maxBytes' in field 'name' must be a non-negative integer, found -1",
                    "test.yaml:10:52: error: 'maximum' (1.0) in field 'size' is smaller than 'minimum' (5.0)",
                    "test.yaml:11:9: error: constraint 'maxLength' does not apply to field 'count' of message 'client hello', whose type is "
                        + "'integer'",
                    "test.yaml:12:9: error: constraint 'maxDecodedBytes' of field 'blob' of message 'client hello' needs 'format: base64'",
                    "test.yaml:13:37: error: 'pattern' in field 'id' is not a valid regular expression: [a-",
                    "test.yaml:14:38: error: 'format' in field 'when' must be one of 'uuid', 'uuidv4', 'base64', 'iso8601', 'epochMillis', 'uri', "
                        + "found 'date'",
                ])
    }

    @Test func conditionalRuleNamingAMissingField() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      client:
                        pair_decision:
                          fields:
                            approve: boolean
                            userId: {type: string, optional: true}
                          rules:
                            - when: {approve: true}
                              require: [userid]
                            - when: {aprove: false}
                              forbid: [userId]
                    """) == [
                    "test.yaml:13:21: error: rule 1 of message 'client pair_decision' names field 'userid', which message 'client pair_decision' "
                        + "does not declare (did you mean 'userId'?)",
                    "test.yaml:14:18: error: rule 2 of message 'client pair_decision' names field 'aprove', which message 'client pair_decision' "
                        + "does not declare (did you mean 'approve'?)",
                ])
    }

    @Test func conditionValueOfTheWrongType() {
        #expect(
            diagnostics(
                preamble + """

                    types:
                      Role: {enum: [user, assistant]}
                    messages:
                      server:
                        message:
                          fields: {ok: boolean, role: Role, deviceId: {type: string, optional: true}}
                          rules:
                            - {when: {ok: "yes"}, require: [deviceId]}
                            - {when: {role: robot}, forbid: [deviceId]}
                    """) == [
                    "test.yaml:12:11: error: rule of message 'server message': the condition on 'ok' is a string, but the type is 'boolean'",
                    "test.yaml:13:11: error: rule of message 'server message': the condition on 'role' uses 'robot', which is not a value of enum "
                        + "'Role'",
                ])
    }

    @Test func malformedYAML() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      client:
                        hello: {fields: {a: string}
                    """) == [
                    "test.yaml:8:1: error: malformed YAML: did not find expected ',' or '}' (while parsing a flow mapping at line 7)"
                ])
    }

    @Test func tabsAreMalformedYAML() {
        let result = SpecLoader.check(yaml: "protocol:\n\tname: x\n", file: "tabs.yaml")
        #expect(result.diagnostics.count == 1)
        #expect(result.diagnostics.first?.description.hasPrefix("tabs.yaml:2:1: error: malformed YAML:") == true)
    }

    @Test func emptyDocument() {
        #expect(
            diagnostics("# nothing here\n") == [
                "test.yaml:1:1: error: the spec is empty; it needs at least 'protocol', 'transport', 'validation', 'errors' and 'messages'"
            ])
    }

    @Test func brokenReferencesAcrossSections() {
        #expect(
            diagnostics(
                preamble + """

                    types:
                      Image: {fields: {data: string}}
                      Thing: {enum: [a]}
                      Attachment: {tag: type, cases: {image: Image, thing: Thing}}
                      Loop: {type: Loop2}
                      Loop2: {type: Loop}
                    messages:
                      client:
                        message:
                          violation: invalid_mesage
                          fields: {id: string, content: string, images: array<Image>}
                          rules:
                            - {budget: total, sum: [content, images.dta], max: 10}
                    session:
                      phases:
                        start: {client: [mesage]}
                      transitions:
                        - {on: server message, to: start}
                    rateLimits:
                      message: {frames: [client message], limit: 0, window: 1 sec, answer: rate_limited}
                    endpoints:
                      download: {method: FETCH, path: "/download/{assetId}", response: {binary: true}}
                    constants:
                      ping: {duration: 30 seconds}
                    """) == [
                    "test.yaml:8:49: error: case 'thing' of type 'Attachment' must be an object type, but 'Thing' is not",
                    "test.yaml:9:3: error: type 'Loop' is an alias that refers back to itself",
                    "test.yaml:10:3: error: type 'Loop2' is an alias that refers back to itself",
                    "test.yaml:14:18: error: undefined error code 'invalid_mesage' in 'violation' in message 'client message' (did you mean "
                        + "'invalid_message'?)",
                    "test.yaml:17:11: error: budget 'total' of message 'client message': path 'images.dta' does not resolve: no field 'dta' in "
                        + "Image (did you mean 'data'?)",
                    "test.yaml:19:3: error: session 'phases' has no initial phase; mark the phase connections start in with 'initial: true'",
                    "test.yaml:20:22: error: 'client' in phase 'start' lists 'mesage', but there is no client message 'mesage' (did you mean "
                        + "'message'?)",
                    "test.yaml:22:12: error: 'on' in transition 1 names 'server message', but there is no server message 'message'",
                    "test.yaml:24:46: error: 'limit' in rate limit 'message' must be a positive integer, found 0",
                    "test.yaml:24:57: error: expected a duration such as 500ms, 30s, 5m, 1h or 365d for 'window' in rate limit 'message', found '1 "
                        + "sec'",
                    "test.yaml:26:22: error: 'method' in endpoint 'download' must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS, found "
                        + "'FETCH'",
                    "test.yaml:26:35: error: 'path' in endpoint 'download' has the placeholder '{assetId}' but 'parameters' does not declare "
                        + "'assetId'",
                    "test.yaml:28:20: error: expected a duration such as 500ms, 30s, 5m, 1h or 365d for 'duration' in constant 'ping', found '30 "
                        + "seconds'",
                ])
    }

    @Test func keyStyleIsEnforced() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      client:
                        hello: {fields: {device_id: string, type: string}}
                    """) == [
                    "test.yaml:7:22: error: field name 'device_id' in message 'client hello' does not follow the protocol's camelCase key style",
                    "test.yaml:7:41: error: message 'client hello' declares the tag field 'type'; it is implied by the message's tag and must not "
                        + "be listed",
                ])
    }

    @Test func allProblemsOfAFileInOneRun() {
        let found = diagnostics(
            """
            protocol: {name: demo, title: Demo, version: one}
            transport: {kind: carrier-pigeon, path: /ws}
            validation: {errorCode: invalid_message}
            errors: {invalid_message: {httpStatus: 400, closes: always}}
            messages:
              client:
                hello: {fields: {name: {type: strin}}, colour: red}
            """)
        #expect(
            found == [
                "test.yaml:1:46: error: expected an integer for 'version' in 'protocol', found a string",
                "test.yaml:2:19: error: 'kind' in 'transport' must be one of 'websocket', 'sse', 'http', found 'carrier-pigeon'",
                "test.yaml:4:10: error: error code 'invalid_message' closes the connection but gives no 'closeCode'",
                "test.yaml:7:35: error: undefined type 'strin' in field 'name' (did you mean 'string'?)",
                "test.yaml:7:44: error: unknown key 'colour' in message 'client hello'",
            ])
    }

    @Test func flowStepsNameParticipantsAndFrames() {
        #expect(
            diagnostics(
                preamble + """

                    messages:
                      client:
                        hello: {fields: {}}
                    flows:
                      start:
                        participants: [app, provider]
                        steps:
                          - {from: ap, to: provider, frame: client hello}
                          - {from: app, to: provider, frame: server hello}
                          - {from: app}
                          - {label: nothing}
                    """) == [
                    "test.yaml:12:16: error: 'from' in step 1 of flow 'start' names 'ap', which is not a participant (app, provider) (did you mean "
                        + "'app'?)",
                    "test.yaml:13:42: error: 'frame' in step 2 of flow 'start' names 'server hello', but there is no server message 'hello'",
                    "test.yaml:14:9: error: step 3 of flow 'start' needs both 'from' and 'to' for an arrow",
                    "test.yaml:15:9: error: step 4 of flow 'start' needs 'from' and 'to' (an arrow) or 'note'",
                ])
    }
}
