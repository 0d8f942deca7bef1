@_spi(Generated) import WireRuntime
import WireSpec

/// What the HTML report of a validated capture shows: each session's frames in order, with the
/// phase the session machine was in after each, the frame each answers, streams grouped, and every
/// finding on the frame it is about. Built by ``CaptureReportRecorder`` as frames are validated.
public struct CaptureReport: Sendable {
    /// One finding, with the spec's `file:line` of the rule or field it concerns.
    public struct Note: Sendable {
        public var finding: Finding
        public var specLocation: String?
    }

    /// One frame of a session.
    public struct Frame: Sendable {
        /// The 1-based index within its session.
        public var index: Int
        /// Milliseconds since the session's first frame with a time, when the capture has times.
        public var offset: Double?
        public var direction: Direction?
        /// The message type (its tag), when the frame has one.
        public var type: String?
        /// The frame's fields in one line.
        public var summary: String
        /// The frame as canonical JSON (the report pretty-prints it on demand).
        public var json: String
        /// The phase the session machine was in after the frame.
        public var phase: String?
        /// The index of the frame this one answers (an `ack` answering a `message`).
        public var answers: Int?
        /// The index of the last frame of this frame's stream, when a later frame of the same type
        /// and id ends it (a snapshot grouped under its final).
        public var finalOfStream: Int?
        public var notes: [Note] = []
    }

    /// One session.
    public struct Session: Sendable {
        public var file: String
        public var id: String
        public var frames: [Frame] = []
        /// Findings about the session as a whole (a run left open at its end).
        public var notes: [Note] = []
        /// How many errors its frames and itself have.
        public var errorCount: Int { (frames.flatMap(\.notes) + notes).filter { $0.finding.severity == .error }.count }
    }

    public var sessions: [Session] = []
    /// Findings about lines that held no frame (a line that is not an envelope).
    public var captureNotes: [(file: String, line: Int?, note: Note)] = []
}

/// Builds a ``CaptureReport`` while ``CaptureValidation`` checks a capture: hand it each frame,
/// its findings and the session's phase after it.
public struct CaptureReportRecorder {
    public private(set) var report = CaptureReport()
    private let spec: ProtocolSpec
    private var sessionIndex: [String: Int] = [:]
    /// Per session: the index of the frame each answered value came in, by `answers` tag then value.
    private var answered: [Int: [String: [String: Int]]] = [:]
    /// Per session: the frames so far of each `direction tag id`, for streams.
    private var streams: [Int: [String: [Int]]] = [:]
    private var firstTime: [Int: Double] = [:]

    public init(spec: ProtocolSpec) { self.spec = spec }

    /// Records `frame`, its `findings`, and the phase its session is in after it.
    public mutating func record(_ frame: CapturedFrame, findings: [LocatedFinding], phase: String?) {
        let key = frame.file + "\u{0}" + frame.session
        let session: Int
        if let known = sessionIndex[key] {
            session = known
        } else {
            session = report.sessions.count
            sessionIndex[key] = session
            report.sessions.append(CaptureReport.Session(file: frame.file, id: frame.session))
        }
        let index = report.sessions[session].frames.count + 1
        var object: [String: JSONValue] = [:]
        var json = ""
        switch frame.payload {
        case .parsed(let tape, let position):
            let value = tape.value(position)
            json = JSONWriter.string(value)
            if case .object(let members) = value { object = members }
        case .notJSON(let error):
            json = JSONWriter.string(.string("not JSON: \(error)"))
        }
        let type: String? = if case .string(let tag)? = object[spec.tagField] { tag } else { nil }
        if let time = frame.timestamp, firstTime[session] == nil { firstTime[session] = time }
        var entry = CaptureReport.Frame(
            index: index, offset: frame.timestamp.flatMap { time in firstTime[session].map { time - $0 } }, direction: frame.direction,
            type: type, summary: Self.summary(of: object, tagField: spec.tagField), json: json, phase: phase)
        entry.notes = findings.map { note(for: $0) }
        if let type, let direction = frame.direction {
            entry.answers = link(type: type, direction: direction, object: object, index: index, session: session)
            if case .string(let id)? = object["id"] {
                let streamKey = "\(direction.rawValue) \(type) \(id)"
                // Every earlier frame of the stream points at this, its latest frame.
                for earlier in streams[session]?[streamKey] ?? [] { report.sessions[session].frames[earlier - 1].finalOfStream = index }
                streams[session, default: [:]][streamKey, default: []].append(index)
            }
        }
        report.sessions[session].frames.append(entry)
    }

    /// Records findings that concern a session as a whole or a line without a frame.
    public mutating func record(unplaced findings: [LocatedFinding]) {
        for finding in findings {
            if let session = sessionIndex[finding.file + "\u{0}" + finding.session] {
                report.sessions[session].notes.append(note(for: finding))
            } else {
                report.captureNotes.append((finding.file, finding.line, note(for: finding)))
            }
        }
    }

    /// The frame an answer names, by the spec's correlations; remembers what this frame may be answered by.
    private mutating func link(type: String, direction: Direction, object: [String: JSONValue], index: Int, session: Int) -> Int? {
        var answers: Int?
        for correlation in spec.session?.correlations ?? [] {
            if correlation.answers.tag == type, correlation.answers.direction == direction,
                let value = Self.text(object[correlation.answersField])
            {
                answered[session, default: [:]][Self.key(correlation.answers), default: [:]][value] = index
            }
            if correlation.frame.tag == type, correlation.frame.direction == direction, let value = Self.text(object[correlation.field]),
                let target = answered[session]?[Self.key(correlation.answers)]?[value]
            {
                answers = target
            }
        }
        return answers
    }

    private func note(for located: LocatedFinding) -> CaptureReport.Note {
        CaptureReport.Note(finding: located.finding, specLocation: specLocation(of: located))
    }

    /// The spec's `file:line` of what a finding is about: the session rule it names, else the
    /// field its path starts at, else the message.
    private func specLocation(of located: LocatedFinding) -> String? {
        let finding = located.finding
        if let session = spec.session {
            let named: [(String, SourceLocation)] =
                session.correlations.map { ($0.name, $0.location) } + session.guards.map { ($0.name, $0.location) }
                + session.uniqueness.map { ($0.name, $0.location) } + session.runs.map { ($0.name, $0.location) }
                + spec.rateLimits.map { ($0.name, $0.location) }
            if let rule = named.first(where: { $0.0 == finding.code || finding.message.contains("(\($0.0))") }) {
                return "\(rule.1.file):\(rule.1.line)"
            }
        }
        guard let type = located.type,
            let message = (spec.messages(.client) + spec.messages(.server)).first(where: {
                $0.tag == type && (located.direction == nil || $0.direction == located.direction)
            })
        else { return nil }
        if case .key(let key)? = finding.path?.components.first, let field = message.shape.fields.first(where: { $0.name == key }) {
            return "\(field.location.file):\(field.location.line)"
        }
        return "\(message.location.file):\(message.location.line)"
    }

    /// The fields of a frame but its tag, in one line of at most 160 characters.
    static func summary(of object: [String: JSONValue], tagField: String) -> String {
        var parts: [String] = []
        for key in object.keys.sorted() where key != tagField {
            let value: String
            switch object[key]! {
            case .string(let text): value = JSONWriter.string(.string(text.count > 40 ? String(text.prefix(40)) + "…" : text))
            case .array(let items): value = "[\(items.count)]"
            case .object(let members): value = "{\(members.count)}"
            case let other: value = JSONWriter.string(other)
            }
            parts.append("\(key)=\(value)")
        }
        let line = parts.joined(separator: " ")
        return line.count > 160 ? String(line.prefix(160)) + "…" : line
    }

    private static func key(_ ref: MessageRef) -> String { "\(ref.direction.rawValue) \(ref.tag)" }

    private static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text): return text
        case .integer(let number): return String(number)
        default: return nil
        }
    }
}
