import Foundation
import Testing
import WireRuntime
import WireSpec
import WireValidator

/// The spec-driven validator agrees with the code generated from the every-construct fixture.
@Suite struct FixtureValidatorAgreementTests {
    static let validator: FrameValidator = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(
            "Fixtures/everything.yaml"
        ).path
        return FrameValidator(spec: try! SpecLoader.check(contentsOf: path).get())
    }()

    static let update = FixtureDecodingTests.update
    static let clientFrames = [
        #"{"kind":"hello","client_version":3,"name":"ana","note":null,"wants_color":true,"cursor":null}"#,
        #"{"kind":"hello","client_version":4,"name":"much too long","wants_color":false,"nick":" ","cursor":"x","since":-5}"#,
        #"{"kind":"post","id":"nope","default":"0123456789012345678901234567890123456789","tags":["a","b","c","d"],"scores":{},"grid":[[1],[2],"#
            + #"[3],"# + #"[4]],"blobs":["AAAAAAAAAAAAAAAAAAAAAAAA","**"],"link":"not a uri"}"#,
        #"{"kind":"names","value":"x","path":2}"#,
        #"{"kind":"ping","seq":-1,"extra":true}"#,
        #"{"kind":"same"}"#,
    ]
    static let serverFrames = [
        update,
        update.replacingOccurrences(of: #""shape":{"shape":"circle","radius":2}"#, with: #""shape":{"shape":"hexagon","side":1}"#)
            .replacingOccurrences(of: #""level":"info""#, with: #""level":"info","mood":"bored""#),
        update.replacingOccurrences(of: #""color":"dark-blue""#, with: #""color":"purple""#).replacingOccurrences(
            of: #""outcome":{"ok":true,"token":"t"}"#, with: #""outcome":{"ok":"yes"}"#
        ).replacingOccurrences(of: #""selector":"*""#, with: #""selector":"all""#),
        update.replacingOccurrences(of: #""level":"info""#, with: #""level":"warn","strict":{"a":1,"b":2},"secret":"s","at":{"x":1,"y":2}"#)
            .replacingOccurrences(of: #""at":null,"#, with: ""),
        update.replacingOccurrences(of: #""selector":"*""#, with: #""selector":["a"]"#).replacingOccurrences(
            of: #""when":"2024-01-08T10:00:00Z""#, with: #""when":"yesterday""#),
        update.replacingOccurrences(of: #""outcome":{"ok":true,"token":"t"}"#, with: #""outcome":{"ok":false,"reason":7}"#),
    ]

    static func issues(_ outcome: FrameValidator.Outcome) -> [String] {
        guard case .checked(_, let issues) = outcome else { return ["not checked"] }
        return issues.map { "\($0) \($0.rule) \($0.answer)" }
    }

    @Test(arguments: clientFrames)
    func clientFrame(_ text: String) {
        #expect(
            Self.issues(Self.validator.check(Array(text.utf8), direction: .client))
                == ClientFrame.decode(text: text).issues.map { "\($0) \($0.rule) \($0.answer)" })
    }

    @Test(arguments: serverFrames)
    func serverFrame(_ text: String) {
        #expect(
            Self.issues(Self.validator.check(Array(text.utf8), direction: .server))
                == ServerFrame.decode(text: text).issues.map { "\($0) \($0.rule) \($0.answer)" })
    }
}
