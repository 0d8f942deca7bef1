import ClawlineProtocol
import Foundation
import Testing
import WireTestSupport

/// Golden frames for every message of both directions.
///
/// `Frames/<direction>/valid/*.json` decode without issues and re-encode to identical bytes.
/// `Frames/<direction>/invalid/*.json` give exactly the issues in the `.expected` file beside them.
/// Refresh the expected files with `UPDATE_GOLDEN=1 swift test` and review the diff.
@Suite struct GoldenFrameTests {
    static let frames = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Frames")

    static func cases(_ direction: String, _ kind: String) -> [URL] {
        Golden.files(in: frames.appendingPathComponent(direction).appendingPathComponent(kind), withExtension: "json")
    }

    @Test(arguments: cases("client", "valid"))
    func validClientFrame(_ file: URL) throws {
        try checkValid(file, ClientFrame.self)
    }

    @Test(arguments: cases("server", "valid"))
    func validServerFrame(_ file: URL) throws {
        try checkValid(file, ServerFrame.self)
    }

    @Test(arguments: cases("client", "invalid"))
    func invalidClientFrame(_ file: URL) throws {
        try checkInvalid(file, ClientFrame.self)
    }

    @Test(arguments: cases("server", "invalid"))
    func invalidServerFrame(_ file: URL) throws {
        try checkInvalid(file, ServerFrame.self)
    }

    @Test func everyMessageHasValidAndInvalidGoldenFrames() {
        for (direction, tags) in [("client", ClientFrame.knownTags), ("server", ServerFrame.knownTags)] {
            let valid = Set(Self.cases(direction, "valid").map { $0.lastPathComponent.split(separator: ".")[0] })
            let invalid = Set(Self.cases(direction, "invalid").map { $0.lastPathComponent.split(separator: ".")[0] })
            for tag in tags {
                #expect(valid.contains(Substring(tag)), "no valid golden frame for \(direction) \(tag)")
                #expect(invalid.contains(Substring(tag)), "no invalid golden frame for \(direction) \(tag)")
            }
        }
    }

    private func checkValid<Frame: WireFrame>(_ file: URL, _ type: Frame.Type) throws {
        let bytes = try Data(contentsOf: file)
        let result = Frame.decode(bytes)
        guard case .decoded(let frame, let warnings) = result else {
            Issue.record("\(file.lastPathComponent) did not decode: \(result.rejectionReason ?? "")")
            return
        }
        #expect(warnings.isEmpty, "\(file.lastPathComponent): \(warnings)")
        #expect(frame.tag == file.lastPathComponent.split(separator: ".").first.map(String.init))
        #expect(frame.encodedData() == bytes, "\(file.lastPathComponent) does not re-encode to the same bytes:\n\(frame.encodedText())")
        #expect(frame.validate().isEmpty)
    }

    private func checkInvalid<Frame: WireFrame>(_ file: URL, _ type: Frame.Type) throws {
        let result = Frame.decode(try Data(contentsOf: file))
        let expectedPath = file.deletingPathExtension().appendingPathExtension("expected").path
        Golden.check(Self.report(result), against: expectedPath)
    }

    /// The decode result as the lines of an `.expected` file.
    static func report<Frame: WireFrame>(_ result: FrameDecodeResult<Frame>) -> String {
        var lines: [String] = []
        switch result {
        case .decoded(let frame, _): lines.append("result: decoded \(frame.tag) with warnings")
        case .notJSON(let error): lines.append("result: not JSON: \(error)")
        case .notAFrame(let reason): lines.append("result: not a frame: \(reason)")
        case .unknownType(let frame): lines.append("result: unknown type '\(frame.tag)'")
        case .invalid(let tag, _): lines.append("result: invalid \(tag)")
        }
        if let answer = result.answer { lines.append("answer: \(answer)") }
        lines += result.issues.map(\.description)
        return lines.joined(separator: "\n") + "\n"
    }
}
