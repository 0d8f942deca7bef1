import ClawlineProtocol
import Foundation
import Testing
@_spi(Generated) import WireRuntime
import WireSpec
import WireTestSupport
import WireValidator

/// The spec-driven validator and the generated ClawlineProtocol code report exactly the same
/// issues for every golden frame, so `wire validate` and apps never disagree.
@Suite struct SameRulesAsGeneratedCodeTests {
    static let root = Golden.repositoryRoot()
    static let validator = FrameValidator(spec: try! SpecLoader.check(contentsOf: root.appendingPathComponent("Spec/clawline.yaml").path).get())

    static func frames(_ direction: String) -> [URL] {
        let base = root.appendingPathComponent("Tests/ClawlineProtocolTests/Frames").appendingPathComponent(direction)
        return Golden.files(in: base.appendingPathComponent("valid"), withExtension: "json")
            + Golden.files(in: base.appendingPathComponent("invalid"), withExtension: "json")
    }

    static func summary(_ outcome: FrameValidator.Outcome) -> [String] {
        switch outcome {
        case .notJSON(let error): return ["notJSON \(error)"]
        case .notAFrame(let reason): return ["notAFrame \(reason)"]
        case .unknownType(let tag): return ["unknownType \(tag)"]
        case .checked(_, let issues): return issues.map { "\($0) \($0.rule) \($0.answer)" }
        }
    }

    static func summary<F: WireFrame>(_ result: FrameDecodeResult<F>) -> [String] {
        switch result {
        case .notJSON(let error): return ["notJSON \(error)"]
        case .notAFrame(let reason): return ["notAFrame \(reason)"]
        case .unknownType(let frame): return ["unknownType \(frame.tag)"]
        case .decoded, .invalid: return result.issues.map { "\($0) \($0.rule) \($0.answer)" }
        }
    }

    @Test(arguments: frames("client"))
    func clientFrame(_ file: URL) throws {
        let bytes = try Data(contentsOf: file)
        #expect(Self.summary(Self.validator.check(bytes, direction: .client)) == Self.summary(ClientFrame.decode(bytes)))
    }

    /// A frame inside a larger document (as in a capture envelope) is checked the same way.
    @Test(arguments: frames("client") + frames("server"))
    func frameInsideAnEnvelope(_ file: URL) throws {
        let direction: Direction = file.path.contains("/client/") ? .client : .server
        let bytes = try Data(contentsOf: file)
        guard (try? JSONParser.parse(bytes)) != nil else { return }  // not JSON: there is no envelope to put it in
        var tape = JSONTape()
        try tape.parse(Array(#"{"dir":"\#(direction.rawValue)","frame":"#.utf8) + Array(bytes) + Array("}".utf8))
        let frame = try #require(tape.member(of: JSONTape.root, key: "frame"))
        #expect(
            Self.summary(Self.validator.check(tape, at: frame, direction: direction))
                == Self.summary(Self.validator.check(bytes, direction: direction)))
    }

    @Test(arguments: frames("server"))
    func serverFrame(_ file: URL) throws {
        let bytes = try Data(contentsOf: file)
        #expect(Self.summary(Self.validator.check(bytes, direction: .server)) == Self.summary(ServerFrame.decode(bytes)))
    }
}
