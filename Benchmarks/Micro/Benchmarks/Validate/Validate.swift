import Benchmark
import Foundation
@_spi(Generated) import WireRuntime
import WireSpec
import WireValidator

// `wire validate`'s work on a capture held in memory, one 1,000-frame capture per operation:
// reading the envelopes, checking every frame and every session rule (`ValidateCapture`); the
// scan into a tape alone (`ScanCapture`); and a plain pass over the same bytes that reads each
// once and does nothing else (`PlainScan`): the physical limit the validator is measured against.

/// The repository's root, found from this file's path (the benchmark runs from any directory).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../..").standardizedFileURL

/// The spec, loaded once.
let spec: ProtocolSpec = {
    let path = root.appendingPathComponent("Spec/clawline.yaml").path
    do { return try SpecLoader.check(contentsOf: path).get() } catch { fatalError("cannot load the spec at \(path): \(error)") }
}()

/// A valid JSONL capture of `frames` envelopes: copies of the example session, each with session
/// ids of its own and timestamps after the previous copy's (as Benchmarks/python/make_capture.py).
func capture(frames: Int) -> [UInt8] {
    let example = root.appendingPathComponent("Examples/captures/clawline-session.jsonl")
    guard let text = try? String(contentsOf: example, encoding: .utf8) else { fatalError("cannot read \(example.path)") }
    let envelopes: [[String: JSONValue]] = text.split(separator: "\n").compactMap {
        guard case .object(let envelope)? = try? JSONParser.parse(String($0)) else { return nil }
        return envelope
    }
    let stamps = envelopes.compactMap { $0["ts"]?.doubleValue }
    let span = (stamps.max() ?? 0) - (stamps.min() ?? 0) + 60_000
    var output: [UInt8] = []
    for index in 0..<frames {
        let copy = index / envelopes.count
        var envelope = envelopes[index % envelopes.count]
        if let session = envelope["session"]?.stringValue { envelope["session"] = .string("\(session)#\(copy)") }
        if let stamp = envelope["ts"]?.doubleValue { envelope["ts"] = .integer(Int(stamp + Double(copy) * span)) }
        output += JSONWriter.bytes(.object(envelope))
        output.append(UInt8(ascii: "\n"))
    }
    return output
}

let benchmarks: @Sendable () -> Void = {
    // Time is reported, never checked.
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .mallocCountTotal, .throughput], maxDuration: .seconds(2))

    let bytes = capture(frames: 1_000)
    let fresh = CaptureValidation(spec: spec)
    Benchmark("ValidateCapture") { benchmark in
        for _ in benchmark.scaledIterations {
            var validation = fresh
            let reader = CaptureReader(file: "capture.jsonl", tagField: spec.tagField, direction: nil) { [validator = fresh.validator] in
                validator.direction(ofTag: $0)
            }
            var findings = 0
            _ = reader.read(bytes: bytes, frame: { findings += validation.process($0).count }, problem: { _ in findings += 1 })
            precondition(findings == 0 && validation.summary.frames == 1_000, "the benchmark capture must be valid")
            blackHole(validation.summary.frames)
        }
    }

    let lines = bytes.split(separator: UInt8(ascii: "\n")).map(Array.init)
    Benchmark("ScanCapture") { benchmark in
        var tape = JSONTape()
        for _ in benchmark.scaledIterations {
            var tokens = 0
            for line in lines {
                try? tape.parse(line)
                tokens += tape.tokenCount
            }
            blackHole(tokens)
        }
    }

    Benchmark("PlainScan") { benchmark in
        for _ in benchmark.scaledIterations {
            // Reads every byte once, eight at a time, and counts the quotes: the least a JSON
            // reader must do (find where each string ends), with nothing else.
            blackHole(quoteCount(bytes))
        }
    }
}

/// The number of `"` bytes, eight bytes at a time (the zero-byte test on each word).
func quoteCount(_ bytes: [UInt8]) -> Int {
    bytes.withUnsafeBufferPointer { buffer in
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var count = 0
        var position = 0
        while position + 8 <= buffer.count {
            let word = UnsafeRawPointer(buffer.baseAddress! + position).loadUnaligned(as: UInt64.self) ^ (ones &* 0x22)
            // Exact per byte: bit 7 of each byte is set where that byte was a quote.
            let zero = ~(((word & ~highs) &+ ~highs) | word | ~highs)
            count &+= zero.nonzeroBitCount
            position += 8
        }
        while position < buffer.count {
            count &+= buffer[position] == 0x22 ? 1 : 0
            position += 1
        }
        return count
    }
}
