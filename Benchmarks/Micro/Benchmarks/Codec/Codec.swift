import Benchmark
import ClawlineProtocol

// Decode + validate and canonical encode of representative Clawline frames, one frame per
// operation, with mallocs per operation reported beside the time.

let chat = ClientFrame.message(ClientMessage(id: "c_1", content: "the quick brown fox jumps over a lazy dog")).encoded()
let partial = ServerFrame.message(
    ServerMessage(
        id: "s_a1", role: .assistant, content: String(repeating: "streamed words ", count: 20), timestamp: 1_704_672_000_000, streaming: true)
).encoded()

let benchmarks: @Sendable () -> Void = {
    // Time is reported, never checked; allocations are checked against Thresholds/ (exactly).
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput], maxDuration: .seconds(2),
        thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])])

    Benchmark("DecodeClientMessage") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(ClientFrame.decode(chat)) }
    }
    Benchmark("DecodeServerPartial") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(ServerFrame.decode(partial)) }
    }
    let decoded = ServerFrame.decode(partial).frame!
    Benchmark("EncodeServerPartial") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(decoded.encoded()) }
    }
}
