import Foundation
@_spi(Generated) import WireRuntime
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
    /// The frame, parsed.
    public var payload: Payload

    public enum Payload: Sendable {
        /// The frame is the value at `index` of a parsed document (the line, or the frame's own text).
        case parsed(JSONTape, index: Int)
        /// The frame was given as JSON text that does not parse.
        case notJSON(JSONSyntaxError)
    }
}

extension CapturedFrame.Payload {
    /// Calls `body` with a view of the parsed frame's tape and the frame's index on it, read where
    /// the payload holds the tape; `nil` for a frame that is not JSON.
    func withParsedView<R>(_ body: (JSONTape.View, Int) -> R) -> R? {
        switch self {
        case .parsed(let tape, let index): tape.withView { body($0, index) }
        case .notJSON: nil
        }
    }

    /// Exchanges the tape of a parsed payload (whose frame is the tape's root) with `tape`, moving
    /// both: no reference to either tape's bytes or tokens is counted.
    mutating func exchangeTape(_ tape: inout JSONTape) {
        switch consume self {
        case .parsed(var held, _):
            swap(&held, &tape)
            self = .parsed(held, index: JSONTape.root)
        case .notJSON(let error):
            self = .notJSON(error)
        }
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
public struct CaptureReader: Sendable {
    public let file: String
    let tagField: String
    let tagKey: UTF8Key
    /// The direction of bare frames, when the user gives one.
    let direction: Direction?
    /// Tells the direction of a bare frame from its tag when only one direction has it.
    let directionOfTag: @Sendable (String) -> Direction?
    /// How many bytes are read from the file at a time (128 KiB); lines may span reads. A read
    /// this size is still in the core's cache when its lines are parsed: with 1 MiB reads,
    /// `wire validate` took about 1.6% more time on a 200,000-frame capture.
    public var chunkSize = 1 << 17
    /// Where each JSONL line's tapes come from when frames outlive the next line (handed to
    /// another thread); `nil` reuses one tape for every line.
    var recycler: TapeRecycler?
    /// Whether lines laid out as the capture writers write them are read by the fast path
    /// (``CanonicalEnvelope``); off only to compare the two paths in tests.
    var readsCanonicalEnvelopes = true

    public init(file: String, tagField: String, direction: Direction?, directionOfTag: @escaping @Sendable (String) -> Direction?) {
        self.file = file
        self.tagField = tagField
        self.tagKey = UTF8Key(tagField)
        self.direction = direction
        self.directionOfTag = directionOfTag
    }

    /// Reads every frame of `handle`, calling `frame` or `problem` for each item in input order.
    /// Returns the detected format.
    @discardableResult
    public func read(_ handle: FileHandle, frame: (CapturedFrame) -> Void, problem: (CaptureProblem) -> Void) throws -> CaptureFormat {
        // `frame` borrows each frame: reading its parts then copies nothing.
        try read(LineReader(handle: handle, chunk: chunkSize), frame: { frame($0) }, problem: problem)
    }

    /// Reads every frame of `handle` as ``read(_:frame:problem:)`` does, handing each frame over
    /// to keep: moved into `frame`, not copied (the pipelined validation keeps frames in batches).
    func read(
        _ handle: FileHandle, keeping frame: (consuming CapturedFrame) -> Void, problem: (CaptureProblem) -> Void
    ) throws
        -> CaptureFormat
    {
        try read(LineReader(handle: handle, chunk: chunkSize), frame: { frame(take(&$0)) }, problem: problem)
    }

    /// Reads every frame of a capture held in memory, calling `frame` or `problem` for each item
    /// in input order. Returns the detected format.
    @discardableResult
    public func read(bytes: [UInt8], frame: (CapturedFrame) -> Void, problem: (CaptureProblem) -> Void) -> CaptureFormat {
        // Bytes in memory cannot fail to read.
        (try? read(LineReader(bytes: bytes), frame: { frame($0) }, problem: problem)) ?? .jsonl
    }

    /// A frame moved out of `frame`, which is left a frame of this file with an empty tape.
    private func take(_ frame: inout CapturedFrame) -> CapturedFrame {
        var taken = emptyFrame
        swap(&taken, &frame)
        return taken
    }

    /// A frame of this file with an empty tape, for ``take(_:)`` to leave and for the lent frame to start as.
    private var emptyFrame: CapturedFrame {
        CapturedFrame(file: file, line: nil, session: "", direction: nil, timestamp: nil, payload: .parsed(JSONTape(), index: JSONTape.root))
    }

    /// Reads every frame of `reader`, handing each to `frame`, which may leave it (a frame it
    /// reads is lent) or take it (``take(_:)``).
    private func read(_ reader: LineReader, frame: (inout CapturedFrame) -> Void, problem: (CaptureProblem) -> Void) throws -> CaptureFormat {
        var lines = reader
        var tape = JSONTape()
        var frameTape = JSONTape()
        guard let first = try lines.next() else { return .jsonl }
        if lines.withBytes(of: first, { Self.looksLikeHAR(firstLine: $0) }) {
            var document = lines.withBytes(of: first) { Array($0) }
            document.append(0x0A)
            while let next = try lines.next() {
                lines.withBytes(of: next) { document.append(contentsOf: $0) }
                document.append(0x0A)
            }
            readHAR(document, frame: frame, problem: problem)
            return .har
        }
        var current: LineReader.Line? = first
        var session = ""
        // Tapes taken back from the recycler, a batch's worth under one lock.
        var spare: [JSONTape] = []
        // The frame of every line the fast path reads, made once: handing a new frame over would
        // count references to the file's name and to the tape's bytes and tokens, line by line.
        // It stays in memory of its own and is handed over by its address: a frame in a variable
        // was copied (129 bytes) for every call, to keep the variable apart from the callee's view.
        let lent = UnsafeMutablePointer<CapturedFrame>.allocate(capacity: 1)
        lent.initialize(to: emptyFrame)
        defer {
            lent.deinitialize(count: 1)
            lent.deallocate()
        }
        while let line = current {
            // The frames handed out hold the last tapes; parse into one nobody holds.
            if let recycler { tape = spare.popLast() ?? recycler.take(into: &spare) }
            readJSONLine(line, of: lines, &tape, &frameTape, &spare, &session, lent, frame: frame, problem: problem)
            // The tape shares the reader's buffer and keeps it from line to line (the next parse
            // counts no reference to it). It lets go of it before a read writes there, so the
            // buffer is not copied (a frame kept by the caller keeps a copy alive instead).
            current = try lines.next(beforeFilling: { tape.releaseBytes() })
        }
        return .jsonl
    }

    /// The envelope's keys, in the order unknown keys are reported against.
    static let envelopeKeyNames = ["dir", "ts", "session", "frame"]

    static func looksLikeHAR(firstLine: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let start = firstLine.firstIndex(where: { !$0.isJSONWhitespace }), firstLine[start] == UInt8(ascii: "{") else { return false }
        var tape = JSONTape()
        guard (try? tape.parse(firstLine)) != nil else { return true }  // a pretty-printed document
        return tape.member(of: JSONTape.root, key: "log") != nil
    }

    // MARK: JSONL

    private func readJSONLine(
        _ line: LineReader.Line, of lines: LineReader, _ tape: inout JSONTape, _ frameTape: inout JSONTape, _ spare: inout [JSONTape],
        _ lastSession: inout String, _ lent: UnsafeMutablePointer<CapturedFrame>, frame: (inout CapturedFrame) -> Void,
        problem: (CaptureProblem) -> Void
    ) {
        guard lines.withBytes(of: line, { $0.contains(where: { !$0.isJSONWhitespace }) }) else { return }
        if readsCanonicalEnvelopes, readCanonicalLine(line, of: lines, &tape, &lastSession, into: &lent.pointee) {
            // The tape moves into the lent frame and back, uncopied; a frame taken leaves an empty tape.
            lent.pointee.payload.exchangeTape(&tape)
            frame(&lent.pointee)
            lent.pointee.payload.exchangeTape(&tape)
            return
        }
        do {
            // The line is scanned where the reader holds it, not copied into the tape.
            try lines.parse(line, into: &tape)
        } catch {
            let message = line.isLast && !line.endedWithNewline ? "truncated last line: \(error)" : "line is not JSON: \(error)"
            problem(CaptureProblem(file: file, line: line.number, session: nil, message: message))
            return
        }
        switch tape.withView({ readEnvelope($0, lastSession: &lastSession) }) {
        case .problem(let message, let session):
            problem(CaptureProblem(file: file, line: line.number, session: session, message: message))
        case .bare(let direction):
            var captured = CapturedFrame(
                file: file, line: line.number, session: "", direction: direction, timestamp: nil, payload: .parsed(tape, index: JSONTape.root))
            frame(&captured)
        case .envelope(let session, let direction, let timestamp, let frameIndex, let frameIsText):
            if frameIsText, let recycler { frameTape = spare.popLast() ?? recycler.take(into: &spare) }
            let payload: CapturedFrame.Payload =
                frameIsText ? Self.parse(string: frameIndex, of: tape, into: &frameTape) : .parsed(tape, index: frameIndex)
            var captured = CapturedFrame(
                file: file, line: line.number, session: session, direction: direction, timestamp: timestamp, payload: payload)
            frame(&captured)
        }
    }

    /// Reads a line laid out as ``CanonicalEnvelope`` says, scanning only its frame into `tape`,
    /// and writes its envelope into `captured` (whose payload the caller sets); `false` when the
    /// line is laid out otherwise or its frame does not parse there (the general path then reads
    /// it again, and reports what is wrong).
    private func readCanonicalLine(
        _ line: LineReader.Line, of lines: LineReader, _ tape: inout JSONTape, _ lastSession: inout String, into captured: inout CapturedFrame
    ) -> Bool {
        guard let envelope = lines.withBytes(of: line, { CanonicalEnvelope($0) }) else { return false }
        let start = line.range.lowerBound
        do {
            // The frame sits inside the envelope's object, which counts towards the nesting limit.
            try lines.parse((start + envelope.frame.lowerBound)..<(start + envelope.frame.upperBound), into: &tape, enclosingDepth: 1)
        } catch {
            return false
        }
        lines.withBytes(of: line) { bytes in
            let session = UnsafeBufferPointer(rebasing: bytes[envelope.session])
            let same = lastSession.withUTF8 { JSONTape.equalBytes($0, session) }
            if !same { lastSession = String(decoding: session, as: UTF8.self) }
        }
        captured.line = line.number
        captured.session = lastSession
        captured.direction = envelope.direction
        captured.timestamp = envelope.timestamp
        return true
    }

    /// What a JSONL line holds.
    private enum LineContent {
        case problem(String, session: String?)
        case bare(Direction?)
        case envelope(session: String, direction: Direction?, timestamp: Double?, frame: Int, frameIsText: Bool)
    }

    /// Reads the envelope of a line; `lastSession` is the session of the line before, whose
    /// text is reused (not made again) when this line's session is the same.
    private func readEnvelope(_ tape: JSONTape.View, lastSession: inout String) -> LineContent {
        let root = JSONTape.root
        guard tape.kind(root) == .object else {
            return .problem(
                "a line must be a frame object or an envelope {\"dir\", \"ts\", \"session\", \"frame\"}, found \(tape.kindDescription(root))",
                session: nil)
        }
        var dirIndex: Int?
        var tsIndex: Int?
        var sessionIndex: Int?
        var frameIndex: Int?
        var tagIndex: Int?
        var hasUnknownKeys = false
        // Literals, not keys kept in objects: reading a kept key costs a reference count per line.
        // The key's length picks the one envelope key it can be, so each key is compared once.
        tape.forEachMember(of: root) { key, value in
            let known = tape.withStringBytes(key) { bytes -> Bool in
                switch bytes.count {
                case 5 where Self.equal(bytes, "frame"): frameIndex = value
                case 3 where Self.equal(bytes, "dir"): dirIndex = value
                case 2 where Self.equal(bytes, "ts"): tsIndex = value
                case 7 where Self.equal(bytes, "session"): sessionIndex = value
                default: return false
                }
                return true
            }
            if !known {
                if tape.stringEquals(key, tagKey.bytes) { tagIndex = value }
                hasUnknownKeys = true
            }
            return true
        }
        guard let frameIndex, dirIndex != nil || tagIndex == nil else {
            let tag = tagIndex.flatMap { tape.kind($0) == .string ? tape.string($0) : nil }
            let direction = self.direction ?? tag.flatMap(directionOfTag)
            if direction == nil, let tag {
                return .problem(
                    "cannot tell who sent '\(tag)': both directions have it, or neither; use an envelope with \"dir\" or --direction", session: nil)
            }
            return .bare(direction)
        }
        if hasUnknownKeys {
            var unknown: [String] = []
            tape.forEachMember(of: root) { key, _ in
                let name = tape.string(key)
                if !Self.envelopeKeyNames.contains(name) { unknown.append(name) }
                return true
            }
            let first = unknown.min() ?? ""
            return .problem("unknown envelope key '\(first)'; an envelope has dir, ts, session and frame", session: nil)
        }
        var session = ""
        if let index = sessionIndex {
            switch tape.kind(index) {
            case .null: break
            case .string:
                if !lastSession.withUTF8({ tape.stringEquals(index, $0) }) { lastSession = tape.string(index) }
                session = lastSession
            case .integer: session = String(tape.integer(index))
            default: return .problem("envelope 'session' must be a string, found \(tape.kindDescription(index))", session: nil)
            }
        }
        var direction = self.direction
        if let dirIndex {
            let named: Direction? =
                tape.kind(dirIndex) != .string
                ? nil
                : tape.withStringBytes(dirIndex) { bytes in
                    guard bytes.count == 6 else { return nil }
                    return Self.equal(bytes, "client") ? .client : Self.equal(bytes, "server") ? .server : nil
                }
            if let named {
                direction = named
            } else {
                return .problem("envelope 'dir' must be \"client\" or \"server\", found \(JSONWriter.string(tape.value(dirIndex)))", session: session)
            }
        } else if direction == nil {
            return .problem("envelope 'dir' must be \"client\" or \"server\", found nothing", session: session)
        }
        var timestamp: Double?
        if let index = tsIndex {
            switch tape.kind(index) {
            case .null: break
            case .integer, .number: timestamp = tape.double(index)
            case .string:
                let text = tape.string(index)
                guard let date = WireFormats.parseISO8601(text) else {
                    return .problem("envelope 'ts' \"\(text)\" is neither epoch milliseconds nor an ISO-8601 date-time", session: session)
                }
                timestamp = date.timeIntervalSince1970 * 1000
            default:
                return .problem(
                    "envelope 'ts' must be epoch milliseconds or an ISO-8601 string, found \(tape.kindDescription(index))", session: session)
            }
        }
        return .envelope(
            session: session, direction: direction, timestamp: timestamp, frame: frameIndex, frameIsText: tape.kind(frameIndex) == .string)
    }

    /// Whether `bytes` are the bytes of `literal`, whose length the caller has matched.
    @inline(__always)
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        memcmp(bytes.baseAddress!, literal.utf8Start, literal.utf8CodeUnitCount) == 0
    }

    /// Parses a frame given as a JSON string (its text) into `frameTape`.
    static func parse(string index: Int, of tape: JSONTape, into frameTape: inout JSONTape) -> CapturedFrame.Payload {
        do {
            try tape.withStringBytes(index) { bytes throws(JSONSyntaxError) in try frameTape.parse(bytes) }
            return .parsed(frameTape, index: JSONTape.root)
        } catch {
            return .notJSON(error)
        }
    }

    // MARK: HAR

    private func readHAR(_ document: [UInt8], frame: (inout CapturedFrame) -> Void, problem: (CaptureProblem) -> Void) {
        var tape = JSONTape()
        do {
            try tape.parse(adopting: document)
        } catch {
            problem(CaptureProblem(file: file, line: error.line, session: nil, message: "the HAR file is not JSON: \(error)"))
            return
        }
        func member(_ index: Int?, _ key: String, _ kind: JSONTape.Kind) -> Int? {
            guard let index, tape.kind(index) == .object, let found = tape.member(of: index, key: key), tape.kind(found) == kind else { return nil }
            return found
        }
        guard let entries = member(member(JSONTape.root, "log", .object), "entries", .array) else {
            problem(CaptureProblem(file: file, line: nil, session: nil, message: "a HAR file needs log.entries"))
            return
        }
        var frameTape = JSONTape()
        tape.forEachItem(of: entries) { entryIndex, entry in
            guard let messages = member(entry, "_webSocketMessages", .array) else { return }
            let url = member(member(entry, "request", .object), "url", .string).map { " \(tape.string($0))" } ?? ""
            let session = "entry \(entryIndex + 1)\(url)"
            tape.forEachItem(of: messages) { index, message in
                let place = "message \(index + 1)"
                let direction: Direction
                switch member(message, "type", .string).map({ tape.string($0) }) {
                case "send": direction = .client
                case "receive": direction = .server
                default:
                    problem(CaptureProblem(file: file, line: nil, session: session, message: "\(place): 'type' must be send or receive"))
                    return
                }
                if let opcode = member(message, "opcode", .integer).map({ tape.integer($0) }), opcode != 1 {
                    problem(
                        CaptureProblem(file: file, line: nil, session: session, message: "\(place): opcode \(opcode) is not a text frame; skipped"))
                    return
                }
                guard let data = member(message, "data", .string) else {
                    problem(CaptureProblem(file: file, line: nil, session: session, message: "\(place): no 'data'"))
                    return
                }
                let time = member(message, "time", .integer) ?? member(message, "time", .number)
                let timestamp = time.map { tape.double($0) * 1000 }
                var captured = CapturedFrame(
                    file: file, line: nil, session: session, direction: direction, timestamp: timestamp,
                    payload: Self.parse(string: data, of: tape, into: &frameTape))
                frame(&captured)
            }
        }
    }
}

/// Splits a file handle's bytes (a chunk at a time) or bytes in memory into lines, without copying
/// each line.
struct LineReader {
    struct Line {
        var number: Int
        /// The line's bytes in the reader's buffer, valid until the next call to `next()`.
        var range: Range<Int>
        var endedWithNewline: Bool
        var isLast: Bool
    }

    let handle: FileHandle?
    /// How many bytes one read asks for.
    let chunk: Int
    /// The bytes read and not yet handed out are `buffer[start..<end]`; reads land after `end`.
    /// The buffer is grown (doubled) only when a line is longer than the room a read leaves.
    private var buffer: [UInt8] = []
    private var end = 0
    private var start = 0
    private var searched = 0
    private var number = 0
    private var atEnd = false

    init(handle: FileHandle, chunk: Int) {
        self.handle = handle
        self.chunk = max(1, chunk)
    }

    /// A reader of bytes already in memory (nothing is read from a file).
    init(bytes: [UInt8]) {
        handle = nil
        chunk = 1
        buffer = bytes
        end = bytes.count
        atEnd = true
    }

    /// Reads up to a chunk from the file straight into the buffer after `end`; returns how many
    /// bytes came. Room is made first by moving the unfinished line to the front (it holds no
    /// line break), and by doubling the buffer only when that is not enough. So each byte is
    /// written once by the read, and the buffer's zeros are paid for once, not on every read.
    private mutating func fill() throws -> Int {
        guard let descriptor = handle?.fileDescriptor else { return 0 }
        if buffer.count - end < chunk {
            if start > 0 {
                let (from, kept) = (start, end - start)
                buffer.withUnsafeMutableBufferPointer { bytes in
                    guard kept > 0 else { return }
                    bytes.baseAddress!.update(from: bytes.baseAddress! + from, count: kept)
                }
                searched -= from
                start = 0
                end = kept
            }
            if buffer.count - end < chunk {
                buffer.append(contentsOf: repeatElement(0, count: max(buffer.count * 2, end + chunk) - buffer.count))
            }
        }
        let (chunk, end) = (chunk, end)
        let (received, failure) = buffer.withUnsafeMutableBytes { readRetryingInterrupts(descriptor, into: $0.baseAddress! + end, count: chunk) }
        if failure != 0 { throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(failure))]) }
        self.end += received
        return received
    }

    /// Calls `body` with a line's bytes (without its line break).
    func withBytes<R>(of line: Line, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[line.range])) }
    }

    /// Parses a line into `tape`, which shares the reader's buffer (no copy of the line) until
    /// it parses something else or lets go of its bytes.
    func parse(_ line: Line, into tape: inout JSONTape) throws(JSONSyntaxError) {
        try tape.parse(in: buffer, range: line.range)
    }

    /// Parses the value at `range` of the buffer (part of the current line), nested in
    /// `enclosingDepth` containers of the line, into `tape`, which shares the buffer as above.
    func parse(_ range: Range<Int>, into tape: inout JSONTape, enclosingDepth: Int) throws(JSONSyntaxError) {
        try tape.parse(in: buffer, range: range, enclosingDepth: enclosingDepth)
    }

    mutating func next() throws -> Line? {
        try next(beforeFilling: {})
    }

    /// ``next()``, calling `beforeFilling` before a read writes into the buffer (so a holder of
    /// the buffer, such as a tape parsed in it, can let go of it first and spare it a copy).
    mutating func next(beforeFilling: () -> Void) throws -> Line? {
        while true {
            // Bytes before `searched` are known to hold no line break (a long line spans chunks).
            let (from, end) = (max(start, searched), end)
            let newline: Int? = buffer.withUnsafeBufferPointer { bytes in
                guard from < end, let found = memchr(bytes.baseAddress! + from, 0x0A, end - from) else { return nil }
                return bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }
            searched = newline ?? end
            if let newline {
                var end = newline
                if end > start, buffer[end - 1] == 0x0D { end -= 1 }
                let range = start..<end
                start = newline + 1
                number += 1
                return Line(number: number, range: range, endedWithNewline: true, isLast: false)
            }
            if atEnd {
                guard start < end else { return nil }
                let range = start..<end
                start = end
                number += 1
                return Line(number: number, range: range, endedWithNewline: false, isLast: true)
            }
            beforeFilling()
            if try fill() == 0 { atEnd = true }
        }
    }
}

extension UInt8 {
    var isJSONWhitespace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}
