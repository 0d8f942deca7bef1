import ClawlineProtocol
import Foundation
import WireRuntime

/// Checks a JSONL capture with the rules `wire validate` applies, from the tables generated from
/// the same spec: every frame decoded and validated by its direction's generated decoder, every
/// session run through WireRuntime's session machine at the captured timestamps.
struct CaptureCheck {
    struct Report {
        var frames = 0
        var sessions = 0
        /// Errors and warnings, `line N: …`.
        var findings: [String] = []
    }

    static func check(_ capture: String) -> Report {
        var report = Report()
        let clock = CaptureTime()
        var machines: [String: SessionMachine] = [:]
        let engine = SessionEngine(rules: Clawline.sessionRules, rateLimits: Clawline.RateLimits.all)
        for (offset, line) in capture.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let number = offset + 1
            guard case .object(let envelope)? = try? JSONParser.parse(String(line)), case .string(let session)? = envelope["session"],
                case .string(let dir)? = envelope["dir"], let direction = FrameDirection(rawValue: dir), let frame = envelope["frame"]
            else {
                report.findings.append("line \(number): not a capture envelope")
                continue
            }
            report.frames += 1
            let milliseconds: Double
            switch envelope["ts"] {
            case .integer(let value)?: milliseconds = Double(value)
            case .number(let value)?: milliseconds = value
            default: milliseconds = 0
            }
            clock.set(milliseconds)
            let answer: ViolationAnswer?
            let rejection: String?
            if direction == .client {
                let result = ClientFrame.decode(json: frame)
                (answer, rejection) = (result.answer, result.frame == nil ? result.rejectionReason : nil)
            } else {
                let result = ServerFrame.decode(json: frame)
                (answer, rejection) = (result.answer, result.frame == nil ? result.rejectionReason : nil)
            }
            if let rejection { report.findings.append("line \(number): \(dir) frame: \(rejection)") }
            var machine = machines[session] ?? SessionMachine(engine: engine, now: clock.now)
            for violation in machine.observe(json: JSONWriter.bytes(frame), from: direction, answeredCodes: answer?.code.map { [$0] } ?? []) {
                report.findings.append("line \(number): \(dir): \(violation.description)")
            }
            machines[session] = machine
        }
        report.sessions = machines.count
        for (session, machine) in machines.sorted(by: { $0.key < $1.key }) {
            for violation in machine.finish() { report.findings.append("session \(session): \(violation.description)") }
        }
        return report
    }
}

/// The time of the frame being checked, for the session machine's rate windows.
private final class CaptureTime: @unchecked Sendable {
    private let lock = NSLock()
    private var milliseconds = 0.0

    func set(_ value: Double) { lock.withLock { milliseconds = value } }

    var now: @Sendable () -> Duration {
        { [self] in lock.withLock { .milliseconds(Int64(milliseconds)) } }
    }
}
