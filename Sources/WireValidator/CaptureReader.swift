import Foundation
import WireRuntime
import WireSpec

/// One frame read from a capture, before it is checked.
public struct CapturedFrame: Sendable {
    public var file: String
    /// The 1-based input line (JSONL); `nil` for HAR.
    public var line: Int?
    public var session: String
    /// Who sent it, when the capture or the tag says.
    public var direction: Direction?
    /// Milliseconds since the epoch, when the capture has them.
    public var timestamp: Double?
    /// The frame's bytes as captured (a frame given as a JSON string is its text).
    public var payload: Payload

    public enum Payload: Sendable {
        case json(JSONValue)
        case text(String)
    }
}

/// A line or entry of a capture that holds no frame it could read.
public struct CaptureProblem: Sendable, Error {
    public var file: String
    public var line: Int?
    public var session: String?
    public var message: String
}

/// The capture formats `wire validate` reads.
public enum CaptureFormat: String, Sendable {
    case jsonl
    case har
}

/// Reads JSONL and HAR captures as a stream of frames. JSONL is read in chunks, line by line, so
/// memory does not grow with the capture; a HAR file is one JSON document and is read whole.
public struct CaptureReader {
    public let file: String
    let tagField: String
    /// The direction of bare frames, when the user gives one.
    let direction: Direction?
    /// Tells the direction of a bare frame from its tag when only one direction has it.
    let directionOfTag: (String) -> Direction?

    public init(file: String, tagField: String, direction: Direction?, directionOfTag: @escaping (String) -> Direction?) {
        self.file = file
        self.tagField = tagField
        self.direction = direction
        self.directionOfTag = directionOfTag
    }

    /// Reads every frame of `handle`, calling `frame` or `problem` for each item in input order.
    /// Returns the detected format.
    @discardableResult
    public func read(_ handle: FileHandle, frame: (CapturedFrame) -> Void, problem: (CaptureProblem) -> Void) throws -> CaptureFormat {
        var lines = LineReader(handle: handle)
        guard let first = try lines.next() else { return .jsonl }
        if Self.looksLikeHAR(firstLine: first.bytes) {
            var document = first.bytes
            document.append(0x0A)
            while let next = try lines.next() {
                document += next.bytes
                document.append(0x0A)
            }
            readHAR(document, frame: frame, problem: problem)
            return .har
        }
        var current: LineReader.Line? = first
        while let line = current {
            readJSONLine(line, frame: frame, problem: problem)
            current = try lines.next()
        }
        return .jsonl
    }

    static let envelopeKeys: Set<String> = ["dir", "ts", "session", "frame"]

    static func looksLikeHAR(firstLine: [UInt8]) -> Bool {
        guard let start = firstLine.firstIndex(where: { !$0.isJSONWhitespace }), firstLine[start] == UInt8(ascii: "{") else { return false }
        guard let value = try? JSONParser.parse(firstLine) else { return true }  // a pretty-printed document
        return value["log"] != nil
    }

    // MARK: JSONL

    private func readJSONLine(_ line: LineReader.Line, frame: (CapturedFrame) -> Void, problem: (CaptureProblem) -> Void) {
        guard line.bytes.contains(where: { !$0.isJSONWhitespace }) else { return }
        func fail(_ message: String, session: String? = nil) {
            problem(CaptureProblem(file: file, line: line.number, session: session, message: message))
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(line.bytes)
        } catch {
            fail(line.isLast && !line.endedWithNewline ? "truncated last line: \(error)" : "line is not JSON: \(error)")
            return
        }
        guard case .object(let object) = value else {
            fail("a line must be a frame object or an envelope {\"dir\", \"ts\", \"session\", \"frame\"}, found \(value.kindDescription)")
            return
        }
        let isEnvelope = object["frame"] != nil && (object["dir"] != nil || object[tagField] == nil)
        guard isEnvelope else {
            let tag = object[tagField]?.stringValue
            let direction = self.direction ?? tag.flatMap(directionOfTag)
            if direction == nil, let tag {
                fail("cannot tell who sent '\(tag)': both directions have it, or neither; use an envelope with \"dir\" or --direction")
                return
            }
            frame(CapturedFrame(file: file, line: line.number, session: "", direction: direction, timestamp: nil, payload: .json(value)))
            return
        }
        if object.count > 4 || object.keys.contains(where: { !Self.envelopeKeys.contains($0) }) {
            let unknown = object.keys.filter { !Self.envelopeKeys.contains($0) }.sorted()
            fail("unknown envelope key '\(unknown[0])'; an envelope has dir, ts, session and frame")
            return
        }
        var session = ""
        switch object["session"] {
        case nil, .null?: break
        case .string(let text)?: session = text
        case .integer(let number)?: session = String(number)
        case let other?:
            fail("envelope 'session' must be a string, found \(other.kindDescription)")
            return
        }
        var direction = self.direction
        switch object["dir"] {
        case .string("client")?: direction = .client
        case .string("server")?: direction = .server
        case nil where direction != nil: break
        case let other:
            fail("envelope 'dir' must be \"client\" or \"server\", found \(other.map { JSONWriter.string($0) } ?? "nothing")", session: session)
            return
        }
        var timestamp: Double?
        switch object["ts"] {
        case nil, .null?: break
        case .integer(let number)?: timestamp = Double(number)
        case .number(let number)?: timestamp = number
        case .string(let text)?:
            guard let date = WireFormats.parseISO8601(text) else {
                fail("envelope 'ts' \"\(text)\" is neither epoch milliseconds nor an ISO-8601 date-time", session: session)
                return
            }
            timestamp = date.timeIntervalSince1970 * 1000
        case let other?:
            fail("envelope 'ts' must be epoch milliseconds or an ISO-8601 string, found \(other.kindDescription)", session: session)
            return
        }
        let payload: CapturedFrame.Payload
        switch object["frame"]! {
        case .string(let text): payload = .text(text)
        case let other: payload = .json(other)
        }
        frame(CapturedFrame(file: file, line: line.number, session: session, direction: direction, timestamp: timestamp, payload: payload))
    }

    // MARK: HAR

    private func readHAR(_ document: [UInt8], frame: (CapturedFrame) -> Void, problem: (CaptureProblem) -> Void) {
        let root: JSONValue
        do {
            root = try JSONParser.parse(document)
        } catch {
            problem(CaptureProblem(file: file, line: error.line, session: nil, message: "the HAR file is not JSON: \(error)"))
            return
        }
        guard let entries = root["log"]?["entries"]?.arrayValue else {
            problem(CaptureProblem(file: file, line: nil, session: nil, message: "a HAR file needs log.entries"))
            return
        }
        for (entryIndex, entry) in entries.enumerated() {
            guard let messages = entry["_webSocketMessages"]?.arrayValue else { continue }
            let url = entry["request"]?["url"]?.stringValue.map { " \($0)" } ?? ""
            let session = "entry \(entryIndex + 1)\(url)"
            for (index, message) in messages.enumerated() {
                let place = "message \(index + 1)"
                let direction: Direction
                switch message["type"]?.stringValue {
                case "send": direction = .client
                case "receive": direction = .server
                default:
                    problem(CaptureProblem(file: file, line: nil, session: session, message: "\(place): 'type' must be send or receive"))
                    continue
                }
                if let opcode = message["opcode"]?.integerValue, opcode != 1 {
                    problem(CaptureProblem(file: file, line: nil, session: session, message: "\(place): opcode \(opcode) is not a text frame; skipped"))
                    continue
                }
                guard let data = message["data"]?.stringValue else {
                    problem(CaptureProblem(file: file, line: nil, session: session, message: "\(place): no 'data'"))
                    continue
                }
                let timestamp = message["time"]?.doubleValue.map { $0 * 1000 }
                frame(CapturedFrame(file: file, line: nil, session: session, direction: direction, timestamp: timestamp, payload: .text(data)))
            }
        }
    }
}

/// Splits a file handle's bytes into lines, a chunk at a time.
struct LineReader {
    struct Line {
        var number: Int
        var bytes: [UInt8]
        var endedWithNewline: Bool
        var isLast: Bool
    }

    let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var number = 0
    private var atEnd = false

    init(handle: FileHandle) {
        self.handle = handle
    }

    mutating func next() throws -> Line? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let bytes = Array(buffer[start..<end])
                start = newline + 1
                number += 1
                return Line(number: number, bytes: bytes, endedWithNewline: true, isLast: false)
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                let bytes = Array(buffer[start...])
                start = buffer.count
                number += 1
                return Line(number: number, bytes: bytes, endedWithNewline: false, isLast: true)
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty { atEnd = true } else { buffer.append(contentsOf: chunk) }
        }
    }
}

extension UInt8 {
    var isJSONWhitespace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}
