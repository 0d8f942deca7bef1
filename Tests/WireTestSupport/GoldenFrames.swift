import Foundation
import Testing
@_spi(Generated) import WireRuntime

/// Golden frames of a protocol: `<dir>/<direction>/valid/*.json` decode without issues and
/// re-encode to identical bytes; `<dir>/<direction>/invalid/*.json` give exactly the result in the
/// `.expected` file beside them (refresh with `UPDATE_GOLDEN=1 swift test`).
public enum GoldenFrames {
    /// The frame files of one direction and kind (`valid` or `invalid`), sorted.
    public static func files(_ directory: URL, _ direction: String, _ kind: String) -> [URL] {
        Golden.files(in: directory.appendingPathComponent(direction).appendingPathComponent(kind), withExtension: "json")
    }

    /// Checks a valid golden frame: it decodes without warnings, carries the tag its name starts
    /// with, re-encodes to the same bytes and validates clean.
    public static func checkValid<Frame: WireFrame>(_ file: URL, _ type: Frame.Type, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = try Data(contentsOf: file)
        let result = Frame.decode(bytes)
        guard case .decoded(let frame, let warnings) = result else {
            Issue.record("\(file.lastPathComponent) did not decode: \(result.rejectionReason ?? "")", sourceLocation: sourceLocation)
            return
        }
        #expect(warnings.isEmpty, "\(file.lastPathComponent): \(warnings)", sourceLocation: sourceLocation)
        #expect(frame.tag == file.lastPathComponent.split(separator: ".").first.map(String.init), sourceLocation: sourceLocation)
        #expect(
            frame.encodedData() == bytes, "\(file.lastPathComponent) does not re-encode to the same bytes:\n\(frame.encodedText())",
            sourceLocation: sourceLocation)
        #expect(frame.validate().isEmpty, sourceLocation: sourceLocation)
    }

    /// Checks an invalid golden frame against its `.expected` file.
    public static func checkInvalid<Frame: WireFrame>(_ file: URL, _ type: Frame.Type, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = Frame.decode(try Data(contentsOf: file))
        Golden.check(report(result), against: file.deletingPathExtension().appendingPathExtension("expected").path, sourceLocation: sourceLocation)
    }

    /// The decode result as the lines of an `.expected` file.
    public static func report<Frame: WireFrame>(_ result: FrameDecodeResult<Frame>) -> String {
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
