import Foundation
import Testing
import WireSpec
import WireTestSupport
import WireValidator

/// Session rules and capture reading on small inline captures.
@Suite struct SessionRuleTests {
    static let spec = try! SpecLoader.check(contentsOf: Golden.repositoryRoot().appendingPathComponent("Spec/clawline.yaml").path).get()
    static let device = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
    static let user = "3f2e1d0c-9b8a-4f6e-9d4c-3b2a1f0e9d8c"

    /// Validates JSONL text and returns `line: code message` for every finding.
    static func validate(_ text: String) throws -> [String] {
        var validation = CaptureValidation(spec: spec)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("capture-\(UUID().uuidString).jsonl")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forReadingFrom: url)
        var found: [String] = []
        let reader = CaptureReader(file: "t", tagField: "type", direction: nil) { [validator = validation.validator] in validator.direction(ofTag: $0)
        }
        try reader.read(
            handle,
            frame: { frame in
                found += validation.process(frame).map {
                    "\($0.line ?? 0): \($0.finding.severity == .warning ? "warning " : "")\($0.finding.code) \($0.finding.message)"
                }
            },
            problem: { problem in
                let finding = validation.process(problem)
                found.append("\(finding.line ?? 0): \(finding.finding.code) \(finding.finding.message)")
            })
        found += validation.finish().map { "end: \($0.finding.severity.rawValue) \($0.finding.code) \($0.finding.message)" }
        return found
    }

    static func line(_ dir: String, _ ts: String, _ frame: String) -> String {
        #"{"session":"s","dir":"\#(dir)","ts":\#(ts),"frame":\#(frame)}"#
    }

    static var authenticated: [String] {
        [
            line("client", "1000", #"{"type":"auth","protocolVersion":1,"token":"t","deviceId":"\#(device)"}"#),
            line(
                "server", "1010",
                #"{"type":"auth_result","success":true,"userId":"\#(user)","sessionId":"s1","replayCount":0,"replayTruncated":false,"#
                    + #""historyReset":false}"#
            ),
        ]
    }

    /// Sessions are told apart by file and id, however their frames interleave: a session id
    /// seen again (after another session's frame, or in another file) finds its own state.
    @Test func sessionsAreKeptByFileAndIdWhenTheirFramesInterleave() throws {
        var validation = CaptureValidation(spec: Self.spec)
        let (auth, accepted) = (Self.authenticated[0], Self.authenticated[1])
        let message = Self.line("client", "2000", #"{"type":"message","id":"c_1","content":"hi"}"#)
        func frame(_ line: String, in session: String) -> String {
            line.replacingOccurrences(of: #""session":"s""#, with: #""session":"\#(session)""#)
        }
        // one/a authenticates; one/b sends before it has; one/a then sends; two/a is a new session.
        let files = [
            ("one", [frame(auth, in: "a"), frame(accepted, in: "a"), frame(message, in: "b"), frame(message, in: "a")]),
            ("two", [frame(message, in: "a")]),
        ]
        var findings: [[String]] = []
        for (file, lines) in files {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("capture-\(UUID().uuidString).jsonl")
            try Data(lines.joined(separator: "\n").utf8).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            let reader = CaptureReader(file: file, tagField: "type", direction: nil) { [validator = validation.validator] in
                validator.direction(ofTag: $0)
            }
            try reader.read(
                try FileHandle(forReadingFrom: url), frame: { findings.append(validation.process($0).map(\.finding.rule)) },
                problem: { _ in Issue.record("every line is a frame") })
        }
        #expect(validation.summary.sessions == 3, "one/a, one/b and two/a")
        #expect(findings[0].isEmpty && findings[1].isEmpty && findings[3].isEmpty, "one/a authenticated, then sent: \(findings)")
        #expect(!findings[2].isEmpty && !findings[4].isEmpty, "one/b and two/a sent before authenticating: \(findings)")
        #expect(validation.phase(file: "one", session: "a") != validation.phase(file: "two", session: "a"))
        #expect(validation.phase(file: "two", session: "b") == nil && validation.phase(file: "three", session: "a") == nil)
    }

    /// Two sessions taking turns, and a third between them, each keep their own state: the
    /// validation finds the last two sessions without a lookup, and every other one by its id.
    @Test func sessionsTakingTurnsKeepTheirOwnState() throws {
        let (auth, accepted) = (Self.authenticated[0], Self.authenticated[1])
        func frame(_ line: String, in session: String, id: Int? = nil) -> String {
            let line = line.replacingOccurrences(of: #""session":"s""#, with: #""session":"\#(session)""#)
            return id.map { line.replacingOccurrences(of: "c_1", with: "c_\($0)") } ?? line
        }
        let message = Self.line("client", "2000", #"{"type":"message","id":"c_1","content":"hi"}"#)
        // a and b take turns (only a authenticates), c comes between them, then a and b again.
        let lines = [
            frame(auth, in: "a"), frame(message, in: "b", id: 1), frame(accepted, in: "a"), frame(message, in: "b", id: 2),
            frame(message, in: "a", id: 3), frame(message, in: "c", id: 4), frame(message, in: "a", id: 5),
            frame(message, in: "b", id: 6), frame(message, in: "a", id: 7),
        ]
        let findings = try Self.validate(lines.joined(separator: "\n"))
        let lineNumbers = Set(findings.compactMap { Int($0.prefix { $0 != ":" }) })
        #expect(lineNumbers == [2, 4, 6, 8], "b's and c's messages come before they authenticate; a's after: \(findings)")
    }

    /// Found by the capture fuzzer: timestamps far outside any clock's range are still numbers of
    /// milliseconds, and rate limits compare them without converting them to a duration.
    @Test func timestampsFarOutOfRangeAreCheckedNotTrapped() throws {
        let lines = [
            Self.line("client", "1e300", #"{"type":"auth","protocolVersion":1,"token":"t","deviceId":"\#(Self.device)"}"#),
            Self.line("client", "-1e300", #"{"type":"auth","protocolVersion":1,"token":"t","deviceId":"\#(Self.device)"}"#),
        ]
        #expect(try Self.validate(lines.joined(separator: "\n")).isEmpty)
    }

    @Test func oversizeViolationsCloseAfterTheLimit() throws {
        let big = String(repeating: "x", count: 65_537)
        let lines =
            Self.authenticated
            + (0..<3).map { index in
                Self.line("client", "\(2000 + index * 10_000)", #"{"type":"message","id":"c_\#(index)","content":"\#(big)"}"#)
            }
        #expect(
            try Self.validate(lines.joined(separator: "\n")) == [
                "3: payload_too_large $.content: is 65537 UTF-8 bytes, more than the 65536 allowed",
                "4: payload_too_large $.content: is 65537 UTF-8 bytes, more than the 65536 allowed",
                "5: payload_too_large $.content: is 65537 UTF-8 bytes, more than the 65536 allowed",
                "5: payload_too_large breaks the rate limit 'oversize': more than 2 payload_too_large answers within 1 min",
            ])
    }

    @Test func linesLongerThanAReadChunkKeepTheirNumbers() throws {
        // A 2.5 MB line spans three 1 MB reads; the lines after it keep their numbers.
        let huge = String(repeating: "y", count: 2_500_000)
        let lines =
            Self.authenticated + [
                Self.line("client", "2000", #"{"type":"message","id":"c_1","content":"\#(huge)"}"#),
                Self.line("client", "3000", #"{"type":"message","id":"c_2"}"#),
            ]
        #expect(
            try Self.validate(lines.joined(separator: "\n")) == [
                "3: payload_too_large $.content: is 2500000 UTF-8 bytes, more than the 65536 allowed",
                "3: payload_too_large messageBytes totals 2500000 bytes, more than the 327680 allowed",
                "4: invalid_message missing required field 'content'",
            ])
    }

    @Test func slidingWindowsForgetOldFrames() throws {
        let typing = #"{"type":"typing","active":true}"#
        let times = [
            "\"2024-01-08T00:00:01.000Z\"", "\"2024-01-08T00:00:01.400Z\"", "\"2024-01-08T00:00:01.900Z\"", "\"2024-01-08T00:00:02.450Z\"",
            "\"2024-01-08T00:00:02.500Z\"",
        ]
        let authenticated = Self.authenticated.map {
            $0.replacingOccurrences(of: #""ts":1000"#, with: #""ts":"2024-01-08T00:00:00Z""#).replacingOccurrences(
                of: #""ts":1010"#, with: #""ts":"2024-01-08T00:00:00.010Z""#)
        }
        let lines = authenticated + times.map { Self.line("client", $0, typing) }
        #expect(
            try Self.validate(lines.joined(separator: "\n")) == [
                "5: rate_limited breaks the rate limit 'typing': more than 2 client typing frames within 1 s",
                "7: rate_limited breaks the rate limit 'typing': more than 2 client typing frames within 1 s",
            ])
    }

    @Test func retriesWithTheSameContentAreFine() throws {
        let message = #"{"type":"message","id":"c_1","content":"hi"}"#
        let lines =
            Self.authenticated + [
                Self.line("client", "2000", message), Self.line("client", "7000", message),
                Self.line("server", "7010", #"{"type":"ack","id":"c_1"}"#), Self.line("server", "7020", #"{"type":"ack","id":"c_1"}"#),
            ]
        #expect(try Self.validate(lines.joined(separator: "\n")) == [])
    }

    @Test func badEnvelopesAreReportedAndTheRunGoesOn() throws {
        let lines = [
            #"{"session":"s","dir":"sideways","frame":{"type":"typing","active":true}}"#,
            #"{"session":"s","dir":"client","ts":"yesterday","frame":{"type":"typing","active":true}}"#,
            #"{"session":["s"],"dir":"client","frame":{"type":"typing","active":true}}"#,
            #"[1,2]"#,
            "",
            Self.line("client", "1000", #""{\"type\":\"auth\"}""#),
        ]
        #expect(
            try Self.validate(lines.joined(separator: "\r\n")) == [
                #"1: capture envelope 'dir' must be "client" or "server", found "sideways""#,
                #"2: capture envelope 'ts' "yesterday" is neither epoch milliseconds nor an ISO-8601 date-time"#,
                "3: capture envelope 'session' must be a string, found an array",
                #"4: capture a line must be a frame object or an envelope {"dir", "ts", "session", "frame"}, found an array"#,
                "6: invalid_message missing required field 'protocolVersion'",
                "6: invalid_message missing required field 'token'",
                "6: invalid_message missing required field 'deviceId'",
            ])
    }
}
