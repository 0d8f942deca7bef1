import Foundation
import Testing
@_spi(Generated) import WireRuntime
import WireSpec
import WireTestSupport
@testable import WireValidator

/// `CaptureValidation.validate(_:reader:finding:)`, which reads and checks frames on a second
/// thread, finds exactly what reading and processing frame by frame finds, in the same order.
@Suite struct PipelinedValidationTests {
    static let spec = SessionRuleTests.spec
    static let captures = Golden.repositoryRoot().appendingPathComponent("Examples/captures")

    /// Every finding of a run, then the summary, as text to compare.
    static func describe(_ findings: [LocatedFinding], _ summary: ValidationSummary) -> [String] {
        findings.map {
            "\($0.file):\($0.line ?? 0) \($0.session) #\($0.frame ?? 0) \($0.direction?.rawValue ?? "-") \($0.type ?? "-") "
                + "\($0.finding.severity.rawValue) \($0.finding.code) \($0.finding.message)"
        }
            + [
                "\(summary.sessions) sessions, \(summary.frames) frames, \(summary.framesByType.sorted { $0.key < $1.key }), "
                    + "\(summary.errorsByCode.sorted { $0.key < $1.key }), \(summary.warningsByCode.sorted { $0.key < $1.key })"
            ]
    }

    static func reader(_ path: String, _ validation: CaptureValidation) -> CaptureReader {
        CaptureReader(file: path, tagField: spec.tagField, direction: nil) { [validator = validation.validator] in validator.direction(ofTag: $0) }
    }

    static func oneByOne(_ path: String) throws -> [String] {
        var validation = CaptureValidation(spec: spec)
        var findings: [LocatedFinding] = []
        try reader(path, validation).read(
            FileHandle(forReadingFrom: URL(fileURLWithPath: path)), frame: { findings += validation.process($0) },
            problem: { findings.append(validation.process($0)) })
        findings += validation.finish()
        return describe(findings, validation.summary)
    }

    static func pipelined(_ path: String, checks: CaptureValidation.CheckPlacement = .balanced) throws -> [String] {
        var validation = CaptureValidation(spec: spec)
        var findings: [LocatedFinding] = []
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        try validation.validate(handle, reader: reader(path, validation), checks: checks) { findings.append($0) }
        findings += validation.finish()
        return describe(findings, validation.summary)
    }

    @Test(arguments: ["clawline-mistakes.jsonl", "clawline-session.jsonl", "clawline-session.har"])
    func findsWhatOneByOneFinds(_ name: String) throws {
        let path = Self.captures.appendingPathComponent(name).path
        let expected = try Self.oneByOne(path)
        for checks in [CaptureValidation.CheckPlacement.balanced, .readingThread, .callingThread] {
            #expect(try Self.pipelined(path, checks: checks) == expected, "frames checked \(checks)")
        }
        if name == "clawline-mistakes.jsonl" { #expect(expected.count > 10, "the mistakes capture has findings to compare") }
    }

    /// Many batches, with broken lines among them: order and counts survive the hand-over.
    @Test func keepsInputOrderAcrossManyBatches() throws {
        let example = try String(contentsOf: Self.captures.appendingPathComponent("clawline-mistakes.jsonl"), encoding: .utf8)
        var text = ""
        for copy in 0..<80 {
            text += example.split(separator: "\n").map { $0.replacingOccurrences(of: #""session":""#, with: #""session":"\#(copy)-"#) }
                .joined(separator: "\n")
            text += "\nnot json at all \(copy)\n"
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pipelined-\(UUID().uuidString).jsonl")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let expected = try Self.oneByOne(url.path)
        let lines = text.split(separator: "\n").count
        #expect(lines > PipelineLimits.framesPerBatch * PipelineLimits.batchesInFlight)
        for checks in [CaptureValidation.CheckPlacement.balanced, .readingThread, .callingThread] {
            #expect(try Self.pipelined(url.path, checks: checks) == expected, "frames checked \(checks)")
        }
    }

    /// A capture that cannot be read ends with the reader's error, not a hang.
    @Test func reportsAReadFailure() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pipelined-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let handle = try #require(FileHandle(forReadingAtPath: directory.path))
        var validation = CaptureValidation(spec: Self.spec)
        let error = #expect(throws: CaptureReadFailure.self) {
            try validation.validate(handle, reader: Self.reader(directory.path, validation)) { _ in }
        }
        #expect(error?.file == directory.path)
        #expect(error?.reason.isEmpty == false)
    }

    /// The queue between the threads hands over every element once, in order, and never holds
    /// more than its capacity.
    @Test func handoffIsOrderedAndBounded() async throws {
        let handoff = Handoff<Int>(capacity: 3)
        let count = 10_000
        let producer = Thread {
            for value in 0..<count { handoff.send(value) }
            handoff.finish()
        }
        producer.start()
        var received: [Int] = []
        while let value = handoff.receive() {
            #expect(handoff.pending <= 3)
            received.append(value)
        }
        #expect(received == Array(0..<count))
        #expect(handoff.receive() == nil)
    }

    /// Tapes go back a batch at a time and come out again a batch at a time: one taken returns
    /// a given-back tape and moves the rest to the taker, and an empty recycler makes a new tape.
    @Test func recyclerHandsTapesBackAndForthInBatches() throws {
        let recycler = TapeRecycler()
        var given: [JSONTape] = []
        for document in ["[1]", "[1,2]", "[1,2,3]"] {
            var tape = JSONTape()
            try tape.parse(Array(document.utf8))
            given.append(tape)
        }
        recycler.giveBack(&given)
        #expect(given.isEmpty)
        var taken: [JSONTape] = []
        let first = recycler.take(into: &taken)
        #expect(taken.count == 2)
        #expect(([first] + taken).map(\.tokenCount).sorted() == [2, 3, 4])
        var none: [JSONTape] = []
        #expect(recycler.take(into: &none).tokenCount == 0)
        #expect(none.isEmpty)
    }
}
