import Foundation
import WireRuntime

/// Collects the frames of one or more clients as a JSONL capture `wire validate` reads: one
/// envelope per line, `{"session", "dir", "ts", "frame"}`, in the order the frames crossed.
public final class CaptureWriter: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    private var frames = 0

    /// An empty capture.
    public init() {}

    /// An observer recording the frames of one device; its sessions are named `label/pair-1`,
    /// `label/chat-1`, ….
    public func observer(label: String) -> FrameObserver {
        { [self] frame in record(frame, session: "\(label)/\(frame.connection)") }
    }

    /// How many frames were recorded.
    public var frameCount: Int { lock.withLock { frames } }

    /// The capture as JSONL text.
    public var text: String { lock.withLock { lines.joined() } }

    /// Writes the capture to `url` (mode 0600).
    public func write(to url: URL) throws {
        try PrivateFile.write(Data(text.utf8), to: url)
    }

    private func record(_ frame: ObservedFrame, session: String) {
        let milliseconds = Int((frame.timestamp.timeIntervalSince1970 * 1000).rounded(.down))
        // The envelope's keys in the order a reader expects, each value written as canonical JSON.
        var line = #"{"session":"# + JSONWriter.string(.string(session)) + #","dir":"# + JSONWriter.string(.string(frame.direction.rawValue))
        line += #","ts":\#(milliseconds),"frame":"#
        // The frame exactly as it crossed the socket; text that is not a JSON object is kept as a string.
        if case .object = try? JSONParser.parse(frame.text) {
            line += frame.text
        } else {
            line += JSONWriter.string(.string(frame.text))
        }
        line += "}\n"
        lock.withLock {
            lines.append(line)
            frames += 1
        }
    }
}
