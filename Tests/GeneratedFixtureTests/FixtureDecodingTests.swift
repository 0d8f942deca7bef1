import Foundation
import Testing
import WireRuntime

/// Runs the code generated from Tests/Fixtures/everything.yaml, one construct of the language at a time.
@Suite struct FixtureDecodingTests {
    static let item = "123e4567-e89b-12d3-a456-426614174000"

    func client(_ text: String) -> FrameDecodeResult<ClientFrame> { ClientFrame.decode(text: text) }
    func server(_ text: String) -> FrameDecodeResult<ServerFrame> { ServerFrame.decode(text: text) }
    func errors<F>(_ result: FrameDecodeResult<F>) -> [String] { result.issues.errors.map { "\($0.path) \($0.rule) \($0.code)" } }

    static let update =
        #"{"kind":"update","when":"2024-01-08T10:00:00Z","color":"dark-blue","shape":{"shape":"circle","radius":2},"outcome":{"ok":true,"#
        + #""token":"t"},"selector":"*","at":null,"level":"info"}"#

    @Test func typeNameConstDefaultsAndPresenceStates() throws {
        let result = client(#"{"kind":"hello","client_version":3,"name":"ana","note":null,"wants_color":true,"cursor":null}"#)
        guard case .decoded(.hello(let greeting), let warnings) = result else {
            Issue.record("expected a greeting: \(result.rejectionReason ?? "")")
            return
        }
        #expect(warnings.isEmpty)
        #expect(greeting == Greeting(name: "ana", cursor: .null, note: nil))
        #expect(greeting.clientVersion == 3 && greeting.wantsColor)
        #expect(greeting.nick == nil && greeting.retries == nil)
        #expect(
            ClientFrame.hello(greeting).encodedText()
                == #"{"client_version":3,"cursor":null,"kind":"hello","name":"ana","note":null,"wants_color":true}"#)
        let absent = Greeting(name: "ana", cursor: .absent, note: "hi")
        #expect(ClientFrame.hello(absent).encodedText() == #"{"client_version":3,"kind":"hello","name":"ana","note":"hi","wants_color":true}"#)
        let withValue = client(#"{"kind":"hello","client_version":3,"name":"ana","note":"x","wants_color":true,"cursor":"c-1"}"#)
        #expect(withValue.frame == .hello(Greeting(name: "ana", cursor: .value("c-1"), note: "x")))
    }

    @Test func fieldAndMessageAnswers() {
        let result = client(#"{"kind":"hello","client_version":4,"name":"much too long","wants_color":false,"nick":" ","cursor":"x","since":-5}"#)
        #expect(
            errors(result) == [
                "$.client_version const bad_frame", "$.name maxBytes bad_frame", "$.nick notBlank bad_frame", "$.cursor prefix bad_frame",
                "$.note required bad_frame", "$.since format bad_frame", "$.wants_color const bad_frame",
            ])
        let issues = result.issues.errors
        #expect(issues.count == 7)
        // The message says violations close the connection; the field `name` overrides that.
        #expect(issues.first { $0.rule == "maxBytes" }?.answer == ViolationAnswer(code: "bad_frame"))
        #expect(issues.first { $0.rule == "const" }?.answer == ViolationAnswer(code: "bad_frame", closesConnection: true, closeCode: 1008))
        #expect(result.answer == ViolationAnswer(code: "bad_frame", closesConnection: true, closeCode: 1008))
    }

    @Test func mapsWithTypedKeys() throws {
        let text = #"{"kind":"post","id":"\#(Self.item)","default":"d","tallies":{"ab":1,"cd":2},"palette":{"red":["xy"],"dark-blue":[]}}"#
        guard case .decoded(.post(let post), let warnings) = client(text) else {
            Issue.record("expected a post: \(client(text).rejectionReason ?? "")")
            return
        }
        #expect(warnings.isEmpty)
        // The keys are the spec's key types, so a key of the wrong type does not compile.
        let tallies: [Slug: Tally]? = post.tallies
        #expect(tallies == ["ab": 1, "cd": 2])
        #expect(post.palette == [.red: ["xy"], .darkBlue: []])
        #expect(
            ClientFrame.post(post).encodedText()
                == #"{"default":"d","id":"\#(Self.item)","kind":"post","palette":{"dark-blue":[],"red":["xy"]},"tallies":{"ab":1,"cd":2}}"#)

        // A broken key is reported at the key itself (`~`), a broken value at its key's path.
        let bad = client(#"{"kind":"post","id":"\#(Self.item)","default":"d","tallies":{"AB":1,"ok":-1,"x":2},"palette":{"pink":[]}}"#)
        #expect(
            errors(bad) == [
                "$.tallies maxItems too_big", "$.tallies.AB~ pattern bad_frame", "$.tallies.ok minimum bad_frame", "$.tallies.x~ minLength bad_frame",
                "$.palette.pink~ enum bad_frame",
            ])
    }

    @Test func keywordsMapsNestedArraysBase64URIAndFreeFormJSON() throws {
        let text =
            #"{"kind":"post","id":"\#(Self.item)","default":"d","protocol":"p","tags":["a"],"scores":{"a":1,"b":2},"grid":[[1,2],[3]],"#
            + #""blobs":["AAEC"],"link":"https://example.com/x","extra":{"any":[1,"two",null]}}"#
        let result = client(text)
        guard case .decoded(.post(let post), _) = result else {
            Issue.record("expected a post: \(result.rejectionReason ?? "")")
            return
        }
        #expect(post.default == "d" && post.protocol == "p")
        #expect(post.scores == ["a": 1, "b": 2])
        #expect(post.grid == [[1, 2], [3]])
        #expect(post.extra == ["any": [1, "two", nil]])
        #expect(
            ClientFrame.post(post).encodedText()
                == #"{"blobs":["AAEC"],"default":"d","extra":{"any":[1,"two",null]},"grid":[[1,2],[3]],"id":"\#(Self.item)","kind":"post","#
                + #""link":"https://example.com/x","protocol":"p","scores":{"a":1,"b":2},"tags":["a"]}"#
        )

        let bad = client(
            #"{"kind":"post","id":"nope","default":"0123456789012345678901234567890123456789","tags":["a","b","c","d"],"scores":{},"grid":[[1],"#
                + #"[2],"# + #"[3],[4]],"blobs":["AAAAAAAAAAAAAAAAAAAAAAAA","**"],"link":"not a uri"}"#
        )
        #expect(
            errors(bad) == [
                "$.id format bad_frame", "$.tags maxItems too_big", "$.scores minItems bad_frame", "$.grid maxItems too_big",
                "$.blobs[0] maxDecodedBytes too_big", "$.blobs[1] format bad_frame", "$.link format bad_frame", "$ budget too_big",
            ], "too many items is a size limit (the size answer); too few is not")
    }

    @Test func conditionalValuesAreRequired() {
        let green = Self.update.replacingOccurrences(of: #""color":"dark-blue""#, with: #""color":"green""#)
        #expect(errors(server(green)) == [])
        let greenError = green.replacingOccurrences(of: #""level":"info""#, with: #""level":"error","detail":"d""#)
        #expect(server(greenError).issues.errors.map(\.message) == [#"'level' must be info or warn when color is green, found "error""#])
        let greenWithoutLevel = green.replacingOccurrences(of: #","level":"info""#, with: "")
        #expect(
            server(greenWithoutLevel).issues.errors.map(\.message) == [
                "missing required field 'level'", "missing 'level' (must be info or warn when color is green)",
            ])
    }

    @Test func base64AcceptsMissingPaddingAndWhiteSpace() throws {
        for blob in ["AAEC", "AAE", "AAE=", "AA", "AA==", "AA\\nEC", " A A E C "] {
            let text = #"{"kind":"post","id":"\#(Self.item)","default":"d","blobs":["\#(blob)"]}"#
            #expect(errors(client(text)) == [], "\(blob.debugDescription) is base64")
        }
        for blob in ["A", "AAE==", "AA=A", "AA===", "A*AA", "AAA=="] {
            let text = #"{"kind":"post","id":"\#(Self.item)","default":"d","blobs":["\#(blob)"]}"#
            #expect(errors(client(text)) == ["$.blobs[0] format bad_frame"], "\(blob.debugDescription) is not base64")
        }
    }

    @Test func datesEnumsUnionsAndOneOf() throws {
        let result = server(Self.update)
        guard case .decoded(.update(let update), let warnings) = result else {
            Issue.record("expected an update: \(result.rejectionReason ?? "")")
            return
        }
        #expect(warnings.isEmpty)
        #expect(update.when == Date(timeIntervalSince1970: 1_704_708_000))
        #expect(update.color == .darkBlue)
        #expect(update.shape == .circle(Circle(radius: 2)))
        #expect(update.outcome == .granted(Granted(token: "t")))
        #expect(update.selector == .all("*"))
        #expect(update.at == nil)
        #expect(ServerFrame.update(update).encodedText() == Self.update.replacingOccurrences(of: "\"", with: "\"").sortedJSON())

        let names = server(Self.update.replacingOccurrences(of: #""selector":"*""#, with: #""selector":["ab","cd"]"#))
        guard case .decoded(.update(let withNames), _) = names else {
            Issue.record("expected an update: \(names.rejectionReason ?? "")")
            return
        }
        #expect(withNames.selector == .names(["ab", "cd"]))
        let refused = server(Self.update.replacingOccurrences(of: #""outcome":{"ok":true,"token":"t"}"#, with: #""outcome":{"ok":false}"#))
        #expect(refused.frame.flatMap { if case .update(let u) = $0 { return u.outcome } else { return nil } } == .refused(Refused()))
    }

    @Test func openEnumsAndOpenUnionsKeepUnknownValues() throws {
        let text = Self.update
            .replacingOccurrences(of: #""shape":{"shape":"circle","radius":2}"#, with: #""shape":{"shape":"hexagon","side":1}"#)
            .replacingOccurrences(of: #""level":"info""#, with: #""level":"info","mood":"bored""#)
        let result = server(text)
        guard case .decoded(.update(let update), let warnings) = result else {
            Issue.record("expected an update: \(result.rejectionReason ?? "")")
            return
        }
        #expect(warnings.map { "\($0.path) \($0.rule)" } == ["$.mood unknownEnumValue", "$.shape.shape unknownCase"])
        #expect(update.mood == .unknown("bored"))
        #expect(update.shape == .unknown(tag: "hexagon", json: ["shape": "hexagon", "side": 1]))
        #expect(ServerFrame.update(update).encodedText() == text.sortedJSON())
    }

    @Test func keptFieldsOfAUnionCaseAreWrittenInOrderAroundTheUnionTag() throws {
        let text = Self.update.replacingOccurrences(
            of: #""shape":{"shape":"circle","radius":2}"#, with: #""shape":{"zeta":true,"shape":"square","alpha":[1],"side":3,"s":"x"}"#)
        let result = server(text)
        guard case .decoded(.update(let update), _) = result else {
            Issue.record("expected an update: \(result.rejectionReason ?? "")")
            return
        }
        guard case .square(let square) = update.shape else {
            Issue.record("expected a square, got \(update.shape)")
            return
        }
        // The union's tag is not one of Square's own keys, so the square keeps it with the others.
        #expect(square.additionalFields == ["zeta": true, "alpha": [1], "s": "x", "shape": "square"])
        #expect(String(decoding: update.shape.encoded(), as: UTF8.self) == #"{"alpha":[1],"s":"x","shape":"square","side":3,"zeta":true}"#)
        #expect(ServerFrame.update(update).encodedText() == text.sortedJSON())
    }

    @Test func keptFieldsNeverRepeatAKeyTheTypeWritesItself() {
        let bag = Bag(label: "l", additionalFields: ["label": "shadowed", "b": 2, "a": 1])
        #expect(String(decoding: bag.encoded(), as: UTF8.self) == #"{"a":1,"b":2,"label":"l"}"#)
        #expect(bag.jsonValue() == ["a": 1, "b": 2, "label": "l"])
        let square = Shape.square(Square(side: 1, additionalFields: ["shape": "circle", "side": 9]))
        #expect(String(decoding: square.encoded(), as: UTF8.self) == #"{"shape":"square","side":1}"#)
    }

    @Test func closedEnumsUnionsAndOneOfsReject() {
        let text = Self.update
            .replacingOccurrences(of: #""color":"dark-blue""#, with: #""color":"purple""#)
            .replacingOccurrences(of: #""outcome":{"ok":true,"token":"t"}"#, with: #""outcome":{"ok":"yes"}"#)
            .replacingOccurrences(of: #""selector":"*""#, with: #""selector":"all""#)
        #expect(errors(server(text)) == ["$.color enum bad_frame", "$.outcome.ok enum bad_frame", "$.selector oneOf bad_frame"])
    }

    @Test func keptRejectedAndForbiddenFieldsAndConditionalRules() throws {
        let text = Self.update.replacingOccurrences(of: #""level":"info""#, with: #""level":"info","bag":{"label":"l","colour":"red","n":[1]}"#)
        let result = server(text)
        guard case .decoded(.update(let update), _) = result else {
            Issue.record("expected an update: \(result.rejectionReason ?? "")")
            return
        }
        #expect(update.bag == Bag(label: "l", additionalFields: ["colour": "red", "n": [1]]))
        #expect(ServerFrame.update(update).encodedText() == text.sortedJSON())

        let strict = Self.update.replacingOccurrences(
            of: #""level":"info""#, with: #""level":"warn","strict":{"a":1,"b":2},"secret":"s","at":{"x":1,"y":2}"#
        )
        .replacingOccurrences(of: #""at":null,"#, with: "")
        let issues = server(strict).issues.errors
        #expect(
            issues.map { "\($0.path) \($0.rule)" } == ["$.strict.b unknownField", "$.at.y maximum", "$.detail conditional", "$.secret rejectedField"])
        #expect(issues.first { $0.rule == "conditional" }?.answer == ViolationAnswer(code: "bad_frame"))

        let redInfo = Self.update.replacingOccurrences(of: #""color":"dark-blue""#, with: #""color":"red""#)
            .replacingOccurrences(of: #""level":"info""#, with: #""level":"info","detail":"d""#)
        #expect(errors(server(redInfo)) == ["$.detail conditional bad_frame"])
    }

    @Test func sameTagPerDirectionAndSharedMessages() {
        #expect(client(#"{"kind":"same","from_client":true}"#).frame == .same(ClientSame(fromClient: true)))
        #expect(server(#"{"kind":"same","from_server":false}"#).frame == .same(ServerSame(fromServer: false)))
        #expect(client(#"{"kind":"ping","seq":1}"#).frame == .ping(Ping(seq: 1)))
        #expect(server(#"{"kind":"ping","seq":2}"#).frame == .ping(Ping(seq: 2)))
        #expect(ClientFrame.knownTags == ["hello", "post", "same", "names", "ping"])
        #expect(ServerFrame.knownTags == ["same", "update", "verdict", "notice", "ping"])
        #expect(Ping.direction == .client, "a shared message type is declared once")
    }

    @Test func fieldsNamedLikeTheDecodersLocals() {
        let text = #"{"answer":null,"context":null,"errors_before":1,"json":[1],"kind":"names","object":"o","path":"p","value":1.5}"#
        let expected = Names(value: 1.5, path: "p", json: [1], object: "o", context: .null, answer: nil, errorsBefore: 1)
        #expect(client(text).frame == .names(expected))
        #expect(ClientFrame.names(expected).encodedText() == text)
        #expect(
            errors(client(#"{"kind":"names","value":"x","path":2}"#)) == [
                "$.value type bad_frame", "$.path type bad_frame", "$.answer required bad_frame",
            ])
    }

    @Test func codableAppliesTheSameValidation() throws {
        let decoder = JSONDecoder()
        let ping = try decoder.decode(Ping.self, from: Data(#"{"kind":"ping","seq":4}"#.utf8))
        #expect(ping == Ping(seq: 4))
        #expect(throws: DecodingError.self) { try decoder.decode(Ping.self, from: Data(#"{"kind":"ping","seq":-1}"#.utf8)) }
        let encoded = try JSONEncoder().encode(Point(x: 1, y: 0.5))
        #expect(try JSONDecoder().decode(Point.self, from: encoded) == Point(x: 1, y: 0.5))
        #expect(try decoder.decode(Mood.self, from: Data(#""whatever""#.utf8)) == .unknown("whatever"))
        #expect(try decoder.decode(Color.self, from: Data(#""dark-blue""#.utf8)) == .darkBlue)
    }
}

extension String {
    /// The JSON text re-encoded canonically (sorted keys), for comparing with generated encodings.
    func sortedJSON() -> String {
        (try? JSONParser.parse(self)).map(JSONWriter.string) ?? self
    }
}

/// A message whose fields depend on one of them generates as an enum with a factory per case.
@Suite struct FixtureUnionMessageTests {
    @Test func casesFactoriesAndTheWireForm() throws {
        let accepted = ServerFrame.verdict(.accepted(token: "t"))
        #expect(accepted.encodedText() == #"{"accepted":true,"kind":"verdict","token":"t"}"#)
        #expect(ServerFrame.decode(accepted.encoded()).frame == accepted)
        let refused = ServerFrame.decode(text: #"{"kind":"verdict","accepted":false}"#)
        #expect(refused.frame == .verdict(.refused(Refused())))
        let missing = ServerFrame.decode(text: #"{"kind":"verdict","accepted":true}"#)
        #expect(missing.issues.map { "\($0.path) \($0.rule)" } == ["$.token required"])
        let untagged = ServerFrame.decode(text: #"{"kind":"verdict","token":"t"}"#)
        #expect(untagged.issues.map { "\($0.path) \($0.rule)" } == ["$.accepted required"])
    }
}
