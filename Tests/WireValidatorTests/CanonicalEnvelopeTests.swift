import Foundation
import Testing
import WireRuntime
import WireTestSupport

@testable import WireValidator

/// The reader's fast path for lines laid out as the capture writers write them
/// (``CanonicalEnvelope``) must give every line the same frame or problem as the general path.
@Suite struct CanonicalEnvelopeTests {
    /// Everything the reader says about `bytes`, one entry per frame or problem: line, session,
    /// direction, timestamp and the frame's JSON (or the problem's message).
    static func items(_ bytes: [UInt8], fastPath: Bool) -> [String] {
        var reader = CaptureReader(file: "t", tagField: "type", direction: nil) { _ in nil }
        reader.readsCanonicalEnvelopes = fastPath
        var items: [String] = []
        reader.read(
            bytes: bytes,
            frame: { frame in
                let direction = frame.direction.map { "\($0)" } ?? "-"
                let timestamp = frame.timestamp.map { "\($0)" } ?? "-"
                items.append("frame \(frame.line ?? 0) [\(frame.session)] \(direction) \(timestamp) \(CaptureReaderTests.text(of: frame.payload))")
            },
            problem: { items.append("problem \($0.line ?? 0) [\($0.session ?? "-")] \($0.message)") })
        return items
    }

    static func bothPathsAgree(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(text.utf8)
        let fast = items(bytes, fastPath: true)
        let general = items(bytes, fastPath: false)
        #expect(fast == general, "\(text)", sourceLocation: sourceLocation)
    }

    static func matchesLayout(_ line: String) -> Bool {
        Array(line.utf8).withUnsafeBufferPointer { CanonicalEnvelope($0) != nil }
    }

    static let frame = #"{"type":"auth","protocolVersion":1,"token":"t","deviceId":"6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"}"#

    /// Lines the fast path reads, and lines one step away from that layout, which it must leave to
    /// the general path.
    static let canonical: [String] = [
        #"{"session":"s1","dir":"client","ts":1704672000000,"frame":\#(frame)}"#,
        #"{"session":"","dir":"server","ts":0,"frame":{"type":"pong"}}"#,
        #"{"session":"a b#0/c","dir":"server","ts":123456789012345678,"frame":{}}"#,
        #"{"session":"s","dir":"client","ts":5,"frame":{"type":"auth","type":"auth"}}"#,
        #"{"session":"s","dir":"client","ts":5,"frame":{"type":"auth"}x}"#,
        #"{"session":"s","dir":"client","ts":5,"frame":{"type":"auth"} }"#,
        #"{"session":"s","dir":"client","ts":5,"frame":{"type":"auth"},"x":1}"#,
        #"{"session":"s","dir":"client","ts":5,"frame":{"type":"a\u00e9"}}"#,
    ]

    static let nearMisses: [String] = [
        #"{"dir":"client","session":"s1","ts":1,"frame":{"type":"ping"}}"#,
        #"{ "session":"s1","dir":"client","ts":1,"frame":{"type":"ping"}}"#,
        #"{"session":"s\"1","dir":"client","ts":1,"frame":{"type":"ping"}}"#,
        #"{"session":"sé","dir":"client","ts":1,"frame":{"type":"ping"}}"#,
        #"{"session":null,"dir":"client","ts":1,"frame":{"type":"ping"}}"#,
        #"{"session":7,"dir":"client","ts":1,"frame":{"type":"ping"}}"#,
        #"{"session":"s","dir":"Client","ts":1,"frame":{"type":"ping"}}"#,
        #"{"session":"s","dir":"clients","ts":1,"frame":{"type":"ping"}}"#,
        #"{"session":"s","dir":"client","ts":01,"frame":{"type":"ping"}}"#,
        #"{"session":"s","dir":"client","ts":-1,"frame":{"type":"ping"}}"#,
        #"{"session":"s","dir":"client","ts":1.5,"frame":{"type":"ping"}}"#,
        #"{"session":"s","dir":"client","ts":1e3,"frame":{"type":"ping"}}"#,
        #"{"session":"s","dir":"client","ts":1234567890123456789,"frame":{"type":"ping"}}"#,
        #"{"session":"s","dir":"client","ts":"2024-01-08T00:00:00Z","frame":{"type":"ping"}}"#,
        #"{"session":"s","dir":"client","ts":null,"frame":{"type":"ping"}}"#,
        #"{"session":"s","dir":"client","ts":1,"frame":"{\"type\":\"ping\"}"}"#,
        #"{"session":"s","dir":"client","ts":1,"frame":[1]}"#,
        #"{"session":"s","dir":"client","ts":1,"frame":{"type":"ping"}"#,
        #"{"session":"s","dir":"client","ts":1,"frame":{"type":"ping"}}}"#,
        #"{"session":"s","dir":"client","ts":1,"frame":{"type":"ping"},"frame":{}}"#,
        #"{"session":"s","dir":"client","ts":1,"frame":{"type":"ping""#,
        #"{"session":"s","dir":"client","ts":1,"frame":{}"#,
        #"{"session":"s","dir":"client","ts":1,"frame":}"#,
        #"{"session":"s","dir":"client","ts":1,"frame":{"#,
        #"{"session":"s","dir":"client","ts":1}"#,
        #"{"session":"s""#,
        #"{"session":""#,
    ]

    @Test("lines laid out as the writers write them take the fast path; one step away, they do not")
    func layout() {
        for line in Self.canonical { #expect(Self.matchesLayout(line), "\(line)") }
        // Lines whose frame is wrong still match the layout up to the frame: the frame's scan
        // decides, and the general path reports.
        for line in Self.nearMisses.prefix(16) { #expect(!Self.matchesLayout(line), "\(line)") }
    }

    @Test("the fast path and the general path read every line alike")
    func handPickedLines() {
        for line in Self.canonical + Self.nearMisses { Self.bothPathsAgree(line) }
        // Several lines at once: the session text is kept from line to line and made anew when it changes.
        Self.bothPathsAgree((Self.canonical + Self.nearMisses + Self.canonical.reversed()).joined(separator: "\n"))
    }

    @Test("a frame counts the envelope's object towards the nesting limit")
    func nestingLimit() {
        func line(depth: Int) -> String {
            // The envelope is one level, the frame's object another, and the rest are arrays.
            let arrays = depth - 2
            let inner = String(repeating: "[", count: arrays) + String(repeating: "]", count: arrays)
            return #"{"session":"s","dir":"client","ts":1,"frame":{"type":"x","deep":\#(inner)}}"#
        }
        let atLimit = line(depth: JSONParser.maxDepth)
        let pastLimit = line(depth: JSONParser.maxDepth + 1)
        #expect(Self.matchesLayout(atLimit) && Self.matchesLayout(pastLimit))
        #expect(Self.items(Array(atLimit.utf8), fastPath: true).first?.hasPrefix("frame 1 [s] client") == true)
        #expect(Self.items(Array(pastLimit.utf8), fastPath: true).first?.contains("nesting deeper than") == true)
        Self.bothPathsAgree(atLimit)
        Self.bothPathsAgree(pastLimit)
    }

    @Test("every line of the example captures, mutated 4,000 ways, reads alike by both paths")
    func mutatedLines() throws {
        let url = CaptureReaderTests.captures.appendingPathComponent("clawline-session.jsonl")
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
        #expect(lines.allSatisfy { $0.withUnsafeBufferPointer { CanonicalEnvelope($0) != nil } })
        // Bytes that change a JSON document's meaning or layout, and two of non-ASCII UTF-8.
        let alphabet = Array(#"{}[]":,\ 019.-eE"tnfabx"#.utf8) + [0x09, 0x0A, 0xC3, 0xA9, 0x80]
        // Seeded: the same mutations on every run.
        var random = SplitMix64(seed: 0x5EED)
        var fastLayout = 0
        for round in 0..<4_000 {
            var line = lines[round % lines.count]
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let position = Int.random(in: 0..<line.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: line[position] = alphabet.randomElement(using: &random)!
                case 1: line.insert(alphabet.randomElement(using: &random)!, at: position)
                default: line.remove(at: position)
                }
            }
            if line.withUnsafeBufferPointer({ CanonicalEnvelope($0) != nil }) { fastLayout += 1 }
            let fast = Self.items(line, fastPath: true)
            let general = Self.items(line, fastPath: false)
            #expect(fast == general, "\(String(decoding: line, as: UTF8.self))")
        }
        // Most mutations land in the frame, so the fast path meets many of them.
        #expect(fastLayout > 1_000)
    }
}
