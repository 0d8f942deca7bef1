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
        GoldenFrames.files(frames, direction, kind)
    }

    @Test(arguments: cases("client", "valid"))
    func validClientFrame(_ file: URL) throws {
        try GoldenFrames.checkValid(file, ClientFrame.self)
    }

    @Test(arguments: cases("server", "valid"))
    func validServerFrame(_ file: URL) throws {
        try GoldenFrames.checkValid(file, ServerFrame.self)
    }

    @Test(arguments: cases("client", "invalid"))
    func invalidClientFrame(_ file: URL) throws {
        try GoldenFrames.checkInvalid(file, ClientFrame.self)
    }

    @Test(arguments: cases("server", "invalid"))
    func invalidServerFrame(_ file: URL) throws {
        try GoldenFrames.checkInvalid(file, ServerFrame.self)
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
}
