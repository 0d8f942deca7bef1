import ClawlineProtocol
import Foundation

// Decode + validate throughput of a realistic mix of Clawline frames: the generated
// ClawlineProtocol codec against a hand-written Codable equivalent, side by side in one run.
// Run with: swift run -c release ClawlineBenchmarks [frames] [rounds] [only]
// where `only` runs just the measurements whose name contains it (for profiling one of them).

let frameCount = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 20_000 : 20_000
let rounds = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2]) ?? 5 : 5
let only = CommandLine.arguments.count > 3 ? CommandLine.arguments[3] : nil

let device: DeviceId = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
let user: UserId = "3f2e1d0c-9b8a-4f6e-9d4c-3b2a1f0e9d8c"
let words = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "and", "then", "naps", "😀", "café"]

/// A realistic session mix: mostly streamed assistant partials, chat messages, acks and typing.
func makeFrames(count: Int) -> [(client: Bool, bytes: [UInt8])] {
    var generator = SystemRandomNumberGenerator()
    var frames: [(Bool, [UInt8])] = []
    var answer = ""
    for index in 0..<count {
        let text = (0..<Int.random(in: 3...40, using: &generator)).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")
        let client: ClientFrame?
        let server: ServerFrame?
        switch index % 20 {
        case 0: (client, server) = (.message(ClientMessage(id: "c_\(index)", content: text)), nil)
        case 1: (client, server) = (nil, .ack(Ack(id: "c_\(index - 1)")))
        case 2:
            (client, server) = (
                nil,
                .message(
                    ServerMessage(
                        id: "s_u\(index)", role: .user, content: text, timestamp: 1_704_672_000_000 + index, streaming: false, deviceId: device))
            )
        case 3, 4: (client, server) = (.typing(ClientTyping(active: index % 2 == 0)), nil)
        case 5: (client, server) = (nil, .typing(ServerTyping(active: true)))
        case 6:
            (client, server) = (
                .auth(Auth(token: "eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl", deviceId: device, lastMessageId: .value("s_\(index)"))), nil
            )
        case 7:
            (client, server) = (
                nil,
                .authResult(
                    .success(userId: user, sessionId: "sess_\(index)", replayCount: 3, replayTruncated: false, historyReset: false, isAdmin: false))
            )
        case 8:
            (client, server) = (
                .message(
                    ClientMessage(
                        id: "c_\(index)", content: text,
                        attachments: .value([.asset(AssetAttachment(assetId: "a_7c9e6679-7425-40de-944b-e07fc1f90ae7"))]))), nil
            )
        default:
            // A streamed assistant answer: each partial carries the whole text so far.
            answer += " " + text
            (client, server) = (
                nil,
                .message(
                    ServerMessage(
                        id: "s_a\(index / 20)", role: .assistant, content: answer, timestamp: 1_704_672_000_000 + index, streaming: index % 20 != 19))
            )
            if index % 20 == 19 { answer = "" }
        }
        if let client { frames.append((true, client.encoded())) }
        if let server { frames.append((false, server.encoded())) }
    }
    return frames
}

let frames = makeFrames(count: frameCount)
let totalBytes = frames.reduce(0) { $0 + $1.bytes.count }
let datas = frames.map { (client: $0.client, data: Data($0.bytes)) }
print(
    "frames: \(frames.count) (\(frames.filter(\.client).count) client, \(frames.filter { !$0.client }.count) server), \(totalBytes) bytes, mean "
        + "\(totalBytes / frames.count) bytes/frame, \(rounds) rounds"
)

/// One round of `body`: its seconds and what it counted.
func timed(_ body: () -> Int) -> (seconds: Double, count: Int) {
    let clock = ContinuousClock()
    let start = clock.now
    let count = body()
    let elapsed = clock.now - start
    return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, count)
}

/// Prints one line: frames per second and megabytes per second in the best round.
func report(_ name: String, best: Double, count: Int) {
    let framesPerSecond = Double(frames.count) / best
    let megabytesPerSecond = Double(totalBytes) / best / 1_000_000
    print(
        "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(String(format: "%10.0f", framesPerSecond)) frames/s  "
            + "\(String(format: "%7.1f", megabytesPerSecond)) MB/s  (\(count) valid)"
    )
}

func measure(_ name: String, _ body: () -> Int) {
    if let only, !name.contains(only) { return }
    var best = Double.infinity
    var valid = 0
    for _ in 0..<rounds {
        let round = timed(body)
        best = min(best, round.seconds)
        valid = round.count
    }
    report(name, best: best, count: valid)
}

/// Times the generated code and its `Codable` peer in turn, round by round (A B A B), and prints
/// each one's best round and the ratio of the two. This machine's speed moves by up to a factor of
/// two within minutes: rounds taken in turn see the same minutes, where all of one side's rounds
/// and then all of the other's may not.
func compare(_ name: String, _ ours: () -> Int, with peerName: String, _ peer: () -> Int) {
    if let only, !name.contains(only), !peerName.contains(only) { return }
    var (oursBest, peerBest) = (Double.infinity, Double.infinity)
    var (oursCount, peerCount) = (0, 0)
    for _ in 0..<rounds {
        let first = timed(ours)
        let second = timed(peer)
        (oursBest, oursCount) = (min(oursBest, first.seconds), first.count)
        (peerBest, peerCount) = (min(peerBest, second.seconds), second.count)
    }
    report(name, best: oursBest, count: oursCount)
    report(peerName, best: peerBest, count: peerCount)
    print("  \(name) against \(peerName), best round against best round, taken in turn: \(String(format: "%.2f", peerBest / oursBest))x")
}

// Every frame the generator made must decode; say why the first one that did not was rejected.
if let rejected = frames.lazy.compactMap({
    $0.client ? ClientFrame.decode($0.bytes).rejectionReason : ServerFrame.decode($0.bytes).rejectionReason
}).first {
    print("a generated frame was rejected: \(rejected)")
}

let decoder = JSONDecoder()
/// The generated code's decode and checks of every frame.
func generatedDecode() -> Int {
    var valid = 0
    for frame in frames {
        if frame.client {
            if case .decoded = ClientFrame.decode(frame.bytes) { valid += 1 }
        } else {
            if case .decoded = ServerFrame.decode(frame.bytes) { valid += 1 }
        }
    }
    return valid
}

/// The hand-written `Codable` peer's decode and checks of every frame.
func handWrittenDecode() -> Int {
    var valid = 0
    for frame in datas {
        do {
            if frame.client {
                try decoder.decode(HWClientMessage.self, from: frame.data).validate()
            } else {
                try decoder.decode(HWServerMessage.self, from: frame.data).validate()
            }
            valid += 1
        } catch {}
    }
    return valid
}

compare("generated: decode + validate (bytes)", generatedDecode, with: "hand-written Codable: decode + validate", handWrittenDecode)

measure("hand-written Codable: decode only") {
    var valid = 0
    for frame in datas {
        if frame.client {
            if (try? decoder.decode(HWClientMessage.self, from: frame.data)) != nil { valid += 1 }
        } else {
            if (try? decoder.decode(HWServerMessage.self, from: frame.data)) != nil { valid += 1 }
        }
    }
    return valid
}

measure("generated: JSON parse only (JSONParser)") {
    var valid = 0
    for frame in frames where (try? JSONParser.parse(frame.bytes)) != nil { valid += 1 }
    return valid
}

let decodedClient = frames.compactMap { $0.client ? ClientFrame.decode($0.bytes).frame : nil }
let decodedServer = frames.compactMap { $0.client ? nil : ServerFrame.decode($0.bytes).frame }
let handWrittenClient = datas.compactMap { $0.client ? try? decoder.decode(HWClientMessage.self, from: $0.data) : nil }
let handWrittenServer = datas.compactMap { $0.client ? nil : try? decoder.decode(HWServerMessage.self, from: $0.data) }
let encoder = JSONEncoder()

/// The generated code's canonical encoding of every frame.
func generatedEncode() -> Int {
    var bytes = 0
    for frame in decodedClient { bytes += frame.encoded().count }
    for frame in decodedServer { bytes += frame.encoded().count }
    return decodedClient.count + decodedServer.count
}

/// `JSONEncoder`'s encoding of the hand-written `Codable` peers.
func handWrittenEncode() -> Int {
    var encoded = 0
    for message in handWrittenClient where (try? encoder.encode(message)) != nil { encoded += 1 }
    for message in handWrittenServer where (try? encoder.encode(message)) != nil { encoded += 1 }
    return encoded
}

compare("generated: canonical encode", generatedEncode, with: "hand-written Codable: encode (JSONEncoder)", handWrittenEncode)
