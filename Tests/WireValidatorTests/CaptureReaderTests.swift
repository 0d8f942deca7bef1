import Foundation
import Testing
import WireRuntime
import WireValidator

/// The capture reader reads the same frames and problems, on the same lines, from bytes in memory
/// as from a file read in chunks of any size (lines spanning reads).
@Suite struct CaptureReaderTests {
    static let captures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples/captures")

    static func items(
        _ read: (CaptureReader, (CapturedFrame) -> Void, (CaptureProblem) -> Void) throws -> CaptureFormat
    ) rethrows -> (
        CaptureFormat, [String]
    ) {
        var items: [String] = []
        let reader = CaptureReader(file: "t", tagField: "type", direction: nil) { _ in nil }
        let format = try read(
            reader, { items.append("frame \($0.line ?? 0) \($0.session) \(text(of: $0.payload))") },
            { items.append("problem \($0.line ?? 0) \($0.message)") })
        return (format, items)
    }

    /// The frame as JSON text, so that a line's bytes are compared, not only its number.
    static func text(of payload: CapturedFrame.Payload) -> String {
        switch payload {
        case .parsed(let tape, let index): tape.value(index).description
        case .notJSON(let error): "not JSON: \(error)"
        }
    }

    @Test(
        "bytes in memory and a file in chunks of 1, 7, 64, 300 and 1 MiB bytes read alike",
        arguments: ["clawline-session.jsonl", "clawline-mistakes.jsonl", "clawline-session.har"])
    func memoryAndFileAgree(_ name: String) throws {
        let url = Self.captures.appendingPathComponent(name)
        let bytes = try [UInt8](Data(contentsOf: url))
        let fromMemory = Self.items { reader, frame, problem in reader.read(bytes: bytes, frame: frame, problem: problem) }
        #expect(!fromMemory.1.isEmpty)
        // Lines span reads; a line longer than a read grows the buffer; an unfinished line moves to its front.
        for chunk in [1, 7, 64, 300, 1 << 20] {
            let fromFile = try Self.items { base, frame, problem in
                var reader = base
                reader.chunkSize = chunk
                return try reader.read(try FileHandle(forReadingFrom: url), frame: frame, problem: problem)
            }
            #expect(fromFile.0 == fromMemory.0 && fromFile.1 == fromMemory.1, "\(name) in chunks of \(chunk)")
        }
    }

    /// A line's tape shares the reader's buffer rather than copying the line. Frames kept while
    /// the reader goes on (and reads into that buffer again) must still hold their own lines.
    @Test("frames kept while later lines are read still hold their lines", arguments: [7, 64, 1 << 20])
    func keptFramesKeepTheirLines(chunk: Int) throws {
        let url = Self.captures.appendingPathComponent("clawline-session.jsonl")
        var reader = CaptureReader(file: "t", tagField: "type", direction: nil) { _ in nil }
        reader.chunkSize = chunk
        var kept: [CapturedFrame] = []
        var seen: [String] = []
        try reader.read(
            try FileHandle(forReadingFrom: url),
            frame: {
                kept.append($0)
                seen.append(Self.text(of: $0.payload))
            }, problem: { _ in })
        #expect(kept.count > 10)
        #expect(kept.map { Self.text(of: $0.payload) } == seen)
        for frame in kept {
            guard case .parsed(let tape, _) = frame.payload else { continue }
            #expect(tape.byteCount == tape.bytes.count && tape.bytes.first == UInt8(ascii: "{"))
        }
    }

    /// Envelope keys and `dir` are matched by their text: escaped spellings are the same key, and
    /// a key or direction that differs in one byte, or in length, is not.
    @Test("envelope keys and directions are read by their text")
    func envelopeKeysByText() {
        let lines = [
            #"{"d\u0069r":"cl\u0069ent","ts":1,"s\u0065ssion":"a","fr\u0061me":{"type":"ping"}}"#,
            #"{"dir":"server","ts":1,"session":"a","frame":{"type":"pong"}}"#,
            #"{"dir":"client","ts":1,"session":"a","framf":{"type":"ping"},"frame":{"type":"ping"}}"#,
            #"{"dir":"client","ts":1,"sessions":"a","frame":{"type":"ping"}}"#,
            #"{"dir":"Client","ts":1,"session":"a","frame":{"type":"ping"}}"#,
            #"{"dir":"clients","ts":1,"session":"a","frame":{"type":"ping"}}"#,
        ]
        let bytes = Array(lines.joined(separator: "\n").utf8)
        var read: [String] = []
        let reader = CaptureReader(file: "t", tagField: "type", direction: nil) { _ in nil }
        reader.read(
            bytes: bytes, frame: { read.append("frame \($0.line ?? 0) \($0.session) \($0.direction.map { "\($0)" } ?? "-")") },
            problem: { read.append("problem \($0.line ?? 0) \($0.message)") })
        #expect(
            read == [
                "frame 1 a client",
                "frame 2 a server",
                "problem 3 unknown envelope key 'framf'; an envelope has dir, ts, session and frame",
                "problem 4 unknown envelope key 'sessions'; an envelope has dir, ts, session and frame",
                #"problem 5 envelope 'dir' must be "client" or "server", found "Client""#,
                #"problem 6 envelope 'dir' must be "client" or "server", found "clients""#,
            ], "\(read)")
    }

    @Test("a truncated last line is a problem on its line")
    func truncatedLastLine() {
        let bytes = Array(#"{"dir":"server","session":"a","frame":{"type":"ack","id":"c_1"}}"#.utf8) + [0x0A] + Array(#"{"dir":"#.utf8)
        let read = Self.items { reader, frame, problem in reader.read(bytes: bytes, frame: frame, problem: problem) }
        #expect(read.1.count == 2 && read.1[0].hasPrefix("frame 1") && read.1[1].hasPrefix("problem 2 truncated last line"), "\(read.1)")
    }
}
