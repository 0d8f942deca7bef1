import Foundation
@_spi(Generated) import WireRuntime
import WireSpec
import WireValidator

// Where `wire validate` spends its time, stage by stage, on a JSONL capture of envelopes:
// scanning frames into a tape, checking each frame against the spec (per message type), and
// the whole capture validation with session rules. Run with:
//   swift run -c release ValidatorBenchmarks CAPTURE.jsonl [SPEC] [rounds] [only]
// where `only` runs just the measures whose names contain it (for a profiler).

let arguments = CommandLine.arguments
guard arguments.count > 1 else {
    print("usage: ValidatorBenchmarks CAPTURE.jsonl [SPEC] [rounds] [only]")
    exit(2)
}
let capturePath = arguments[1]
let specPath = arguments.count > 2 ? arguments[2] : "Spec/clawline.yaml"
let rounds = arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5
let only = arguments.count > 4 ? arguments[4] : nil

let spec: ProtocolSpec
do {
    spec = try SpecLoader.check(contentsOf: specPath).get()
} catch {
    print("error: cannot load \(specPath): \(error)")
    exit(2)
}
let validator = FrameValidator(spec: spec)

/// The frames of the capture, as JSON text, with their direction and tag.
var frames: [(direction: Direction, tag: String, bytes: [UInt8])] = []
let text = try String(contentsOfFile: capturePath, encoding: .utf8)
for line in text.split(separator: "\n") {
    guard case .object(let envelope) = try JSONParser.parse(String(line)), case .object(let frame)? = envelope["frame"],
        let dir = envelope["dir"]?.stringValue, let direction = Direction(rawValue: dir), let tag = frame[spec.tagField]?.stringValue
    else { continue }
    frames.append((direction, tag, Array(JSONWriter.string(.object(frame)).utf8)))
}
let lines = text.split(separator: "\n").map { Array($0.utf8) }
print("capture: \(lines.count) lines, \(frames.count) frames, \(rounds) rounds, best of each")

func measure(_ name: String, count: Int, _ body: () -> Int) {
    measure(name, count: count, prepare: {}) { _ in body() }
}

/// Times `body` as the measure above does, on state that `prepare` makes afresh for each round
/// outside the timed part (a validation that keeps its sessions, say).
func measure<State>(_ name: String, count: Int, prepare: () -> State, _ body: (inout State) -> Int) {
    if let only, !name.contains(only) { return }
    var best = Double.infinity
    var checksum = 0
    for _ in 0..<rounds {
        var state = prepare()
        let start = ContinuousClock.now
        checksum = body(&state)
        let elapsed = ContinuousClock.now - start
        best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    let nanos = best / Double(count) * 1e9
    print(
        "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(String(format: "%9.0f", Double(count) / best)) /s  "
            + "\(String(format: "%7.0f", nanos)) ns each  (\(checksum))"
    )
}

measure("scan lines into a tape", count: lines.count) {
    var tape = JSONTape()
    var tokens = 0
    for line in lines {
        try? tape.parse(line)
        tokens += tape.tokenCount
    }
    return tokens
}

measure("scan frames into a tape", count: frames.count) {
    var tape = JSONTape()
    var tokens = 0
    for frame in frames {
        try? tape.parse(frame.bytes)
        tokens += tape.tokenCount
    }
    return tokens
}

/// Scans and checks frames with one reused tape, as `wire validate` does.
/// (Each measure checks through a local copy of the validator: a method called on a global of
/// this file copied the whole 400-byte validator for every frame.)
func scanAndCheck(_ frames: [(direction: Direction, tag: String, bytes: [UInt8])]) -> Int {
    let checker = validator
    var tape = JSONTape()
    var issues = 0
    for frame in frames {
        try? tape.parse(frame.bytes)
        if case .checked(_, let found) = checker.check(tape, direction: frame.direction) { issues += found.count }
    }
    return issues
}

measure("scan + check frames", count: frames.count) { scanAndCheck(frames) }

let byType = Dictionary(grouping: frames) { "\($0.direction.rawValue) \($0.tag)" }
for (name, group) in byType.sorted(by: { $0.key < $1.key }) {
    measure("  scan + check \(name)", count: group.count) { scanAndCheck(group) }
}

/// The work the Python peers do (validate_bench.py), in process and nothing more: the capture
/// already in memory, each envelope read by `wire validate`'s own reader and its frame checked
/// against its direction's messages. Session rules, reading the file and the summary are left
/// out, as the peers have none of them.
let captureBytes = Array(text.utf8)
measure("envelope lines: scan + frame checks (peers' work)", count: lines.count) {
    let checker = validator
    let reader = CaptureReader(file: capturePath, tagField: spec.tagField, direction: nil) { checker.direction(ofTag: $0) }
    var valid = 0
    reader.read(
        bytes: captureBytes,
        frame: { frame in
            guard let direction = frame.direction, isValid(frame.payload, direction, checker) else { return }
            valid += 1
        }, problem: { _ in })
    return valid
}

/// Whether a frame read by the capture reader passes its checks. The payload is borrowed, as
/// `wire validate` reads it: binding its tape with `case .parsed(let tape, ...) = frame.payload`
/// would copy the tape, counting references to its bytes and tokens for every frame.
func isValid(_ payload: borrowing CapturedFrame.Payload, _ direction: Direction, _ checker: FrameValidator) -> Bool {
    switch payload {
    case .parsed(let tape, let index):
        guard case .checked(_, let issues) = checker.check(tape, at: index, direction: direction) else { return false }
        return issues.isEmpty
    case .notJSON: return false
    }
}

// The validation (its plan and session engine, worked out from the spec) is made before the timed
// part, as `wire validate` makes it before it reads the capture.
measure("whole capture (envelopes, sessions, summary)", count: lines.count, prepare: { CaptureValidation(spec: spec) }) { validation in
    let reader = CaptureReader(file: capturePath, tagField: spec.tagField, direction: nil) { validator.direction(ofTag: $0) }
    guard let handle = FileHandle(forReadingAtPath: capturePath) else { return -1 }
    var findings = 0
    _ = try? reader.read(handle, frame: { findings += validation.process($0).count }, problem: { _ in findings += 1 })
    return validation.summary.frames + findings
}
