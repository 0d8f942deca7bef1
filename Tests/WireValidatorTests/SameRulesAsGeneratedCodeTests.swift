import ClawlineProtocol
import Foundation
import Testing
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
        return Golden.files(in: base.appendingPathComponent("valid"), withExtension: "json") + Golden.files(in: base.appendingPathComponent("invalid"), withExtension: "json")
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

    @Test(arguments: frames("server"))
    func serverFrame(_ file: URL) throws {
        let bytes = try Data(contentsOf: file)
        #expect(Self.summary(Self.validator.check(bytes, direction: .server)) == Self.summary(ServerFrame.decode(bytes)))
    }
}
