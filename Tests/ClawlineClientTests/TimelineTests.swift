import ClawlineClient
import ClawlineProtocol
import Foundation
import Testing
import WireTestSupport

/// The timeline reducer as a value: no transport, no clock.
@Suite("Timeline reducer")
struct TimelineTests {
    static let me: DeviceId = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
    static let other: DeviceId = "0a0b0c0d-0000-4000-8000-000000000001"

    static func event(_ id: String, _ role: Role, _ content: String, streaming: Bool = false, from device: DeviceId? = nil) -> ServerMessage {
        ServerMessage(
            id: ServerEventId(id), role: role, content: content, timestamp: 1_704_672_000_000, streaming: streaming,
            deviceId: role == .user ? device : nil)
    }

    static func local(_ id: String, _ content: String, status: ChatMessage.Status = .sending) -> ChatMessage {
        ChatMessage(
            id: id, clientId: id, role: .user, content: content, timestamp: Date(timeIntervalSince1970: 0), status: status, deviceId: me)
    }

    @Test("snapshots replace each other under the answer's id; the final moves the cursor; a late snapshot is ignored")
    func snapshotsAndFinal() {
        var timeline = Timeline(deviceId: Self.me)
        timeline.apply(.received(Self.event("s_1", .assistant, "He", streaming: true)))
        #expect(timeline.isStreaming && timeline.cursor == nil)
        timeline.apply(.received(Self.event("s_1", .assistant, "Hello", streaming: true)))
        timeline.apply(.received(Self.event("s_1", .assistant, "Hello!")))
        #expect(timeline.apply(.received(Self.event("s_1", .assistant, "He", streaming: true))).isEmpty)
        #expect(timeline.messages.map(\.content) == ["Hello!"] && timeline.cursor == "s_1" && !timeline.isStreaming)
    }

    @Test("an acknowledged message is delivered; the echo replaces it and keeps its client id")
    func ackThenEcho() {
        var timeline = Timeline(deviceId: Self.me)
        timeline.apply(.queued(Self.local("c_1", "hi")))
        #expect(timeline.apply(.acknowledged(clientId: "c_1")).map(\.status) == [.delivered])
        let changed = timeline.apply(.received(Self.event("s_1", .user, "hi", from: Self.me)))
        #expect(changed.map(\.id) == ["s_1"] && changed[0].clientId == "c_1")
        #expect(timeline.messages.count == 1 && !timeline.messages[0].isLocal)
    }

    @Test("another device's echo never replaces this device's message, even with the same text")
    func otherDevicesEchoIsAppended() {
        var timeline = Timeline(deviceId: Self.me)
        timeline.apply(.queued(Self.local("c_1", "hi")))
        timeline.apply(.received(Self.event("s_1", .user, "hi", from: Self.other)))
        #expect(timeline.messages.map(\.id) == ["c_1", "s_1"])
    }

    @Test("after a replay with no stream, this device's last message without an answer is failed; an answer clears it")
    func missingFinal() {
        var timeline = Timeline(deviceId: Self.me)
        timeline.apply(.received(Self.event("s_1", .user, "question", from: Self.me)))
        timeline.apply(.received(Self.event("s_2", .assistant, "partial", streaming: true)))
        timeline.apply(.connectionEnded)
        let failed = timeline.apply(.replayFinished)
        #expect(failed.map(\.status) == [.failed] && timeline.messages.map(\.id) == ["s_1"], "the stale partial goes")
        timeline.apply(.received(Self.event("s_2", .assistant, "answer")))
        #expect(timeline.messages.map(\.status) == [.delivered, .delivered])
    }

    @Test("a history reset keeps only this device's messages the server has not echoed, and clears the cursor")
    func historyReset() {
        var timeline = Timeline(deviceId: Self.me)
        timeline.apply(.received(Self.event("s_1", .assistant, "old")))
        timeline.apply(.queued(Self.local("c_1", "new")))
        timeline.apply(.historyReset)
        #expect(timeline.messages.map(\.id) == ["c_1"] && timeline.cursor == nil)
        timeline.apply(.received(Self.event("s_1", .assistant, "old")))
        #expect(timeline.messages.map(\.id) == ["c_1", "s_1"], "after a reset the same event is new again")
    }

    @Test("a refused message and a failed answer are failed with the reason; a retry withdraws a local copy")
    func failuresAndRetry() {
        var timeline = Timeline(deviceId: Self.me)
        timeline.apply(.queued(Self.local("c_1", "bad")))
        #expect(timeline.apply(.refused(clientId: "c_1", reason: "no")).map(\.failure) == ["no"])
        timeline.apply(.retried(messageId: "c_1"))
        #expect(timeline.messages.isEmpty)
        timeline.apply(.queued(Self.local("c_2", "ok")))
        timeline.apply(.acknowledged(clientId: "c_2"))
        timeline.apply(.received(Self.event("s_1", .user, "ok", from: Self.me)))
        timeline.apply(.received(Self.event("s_2", .assistant, "partial", streaming: true)))
        timeline.apply(.answerFailed(clientId: "c_2", reason: "assistant down"))
        #expect(timeline.messages.map(\.id) == ["s_1"] && timeline.messages[0].failure == "assistant down")
        timeline.apply(.retried(messageId: "s_1"))
        #expect(timeline.messages[0].status == .delivered && timeline.messages[0].failure == nil)
    }

    @Test("a view model's updates: the echo replaces the optimistic copy, snapshots replace each other")
    func updatesFromTheService() {
        var timeline = Timeline(deviceId: nil)
        timeline.apply(.updated(Self.local("c_1", "hi")))
        var echo = ChatMessage(
            id: "s_1", clientId: "c_1", role: .user, content: "hi", timestamp: Date(timeIntervalSince1970: 0), status: .delivered)
        timeline.apply(.updated(echo))
        echo.content = "ignored"
        #expect(timeline.messages.map(\.id) == ["s_1"])
        timeline.apply(.updated(ChatMessage(id: "s_2", role: .assistant, content: "E", timestamp: .distantPast, status: .streaming)))
        timeline.apply(.updated(ChatMessage(id: "s_2", role: .assistant, content: "Echo", timestamp: .distantPast, status: .delivered)))
        #expect(timeline.messages.map(\.content) == ["hi", "Echo"])
    }

    @Test("Timeline.reduce is the pure form of apply")
    func reduceIsPure() {
        let empty = Timeline(deviceId: Self.me)
        let next = Timeline.reduce(empty, .received(Self.event("s_1", .assistant, "a")))
        #expect(empty.messages.isEmpty && next.messages.map(\.id) == ["s_1"])
    }
}

/// The property: however the server's events arrive (a replay, live frames, the same events again
/// after a reconnect, snapshots before and after their final), the timeline is the one of each
/// final event applied once, in the order of first arrival. Seeded; a failure prints its seed
/// (`CLAWLINE_PROPERTY_SEED=N` replays it).
@Suite("Timeline reducer, property-based")
struct TimelinePropertyTests {
    @Test("any interleaving of replayed, live and duplicated events gives the timeline of each event once, in order")
    func interleavingsConverge() {
        let fixed = ProcessInfo.processInfo.environment["CLAWLINE_PROPERTY_SEED"].flatMap(UInt64.init)
        let seeds = fixed.map { [$0] } ?? (1...300).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 }
        for seed in seeds {
            var random = SplitMix64(seed: seed)
            let scenario = Scenario(&random)
            let once = scenario.timeline(applying: scenario.finals.map(TimelineEvent.received))
            let noisy = scenario.timeline(applying: scenario.noisyDelivery(&random))
            #expect(noisy.messages == once.messages, "seed \(seed)")
            #expect(noisy.cursor == once.cursor, "seed \(seed)")
            #expect(noisy.messages.filter(\.isLocal).isEmpty, "seed \(seed): every own message found its echo")
        }
    }

    @Test("the change mark: messages before it are as they were at the last mark, after any event")
    func changeMarksAreSafe() {
        let events: (inout SplitMix64, Scenario) -> [TimelineEvent] = { random, scenario in
            var events = scenario.noisyDelivery(&random)
            for _ in 0..<6 {
                let extra: [TimelineEvent] = [
                    .replayFinished, .connectionEnded, .historyReset, .refused(clientId: "c_0", reason: "no"),
                    .answerFailed(clientId: "c_1", reason: "down"), .retried(messageId: "s_0"), .acknowledged(clientId: "c_2"),
                ]
                events.insert(extra[Int(random.next(upTo: UInt64(extra.count)))], at: Int(random.next(upTo: UInt64(events.count + 1))))
            }
            return events
        }
        for seed in (1...200).map({ UInt64($0) &* 0xD1B5_4A32_D192_ED03 }) {
            var random = SplitMix64(seed: seed)
            let scenario = Scenario(&random)
            var timeline = scenario.timeline(applying: [])
            var lastMarked = timeline.messages
            _ = timeline.takeChangeMark()
            for event in events(&random, scenario) {
                timeline.apply(event)
                if random.next(upTo: 2) == 0 { continue }  // marks taken now and then, as saves are
                let mark = timeline.takeChangeMark() ?? timeline.messages.count
                let kept = min(mark, lastMarked.count, timeline.messages.count)
                #expect(Array(lastMarked.prefix(kept)) == Array(timeline.messages.prefix(kept)), "seed \(seed), after \(event)")
                lastMarked = timeline.messages
            }
        }
    }
}

/// A conversation: this device's messages queued and acknowledged, and the server's final events
/// (echoes of them in order, other devices' messages, answers) with snapshots of each answer.
private struct Scenario {
    let ownMessages: [ChatMessage]
    let finals: [ServerMessage]
    let snapshots: [String: [ServerMessage]]

    init(_ random: inout SplitMix64) {
        var own: [ChatMessage] = []
        var finals: [ServerMessage] = []
        var snapshots: [String: [ServerMessage]] = [:]
        for index in 0..<Int(random.next(upTo: 12) + 1) {
            let content = ["hi", "same", "same", "why?"][Int(random.next(upTo: 4))]
            switch random.next(upTo: 3) {
            case 0:
                own.append(TimelineTests.local("c_\(index)", content))
                finals.append(TimelineTests.event("s_\(index)", .user, content, from: TimelineTests.me))
            case 1:
                finals.append(TimelineTests.event("s_\(index)", .user, content, from: TimelineTests.other))
            default:
                let id = "s_\(index)"
                snapshots[id] = (1...3).map { TimelineTests.event(id, .assistant, String(repeating: "a", count: $0), streaming: true) }
                finals.append(TimelineTests.event(id, .assistant, "aaaa"))
            }
        }
        ownMessages = own
        self.finals = finals
        self.snapshots = snapshots
    }

    /// The timeline after the device queued its messages (all acknowledged) and then `events`.
    func timeline(applying events: [TimelineEvent]) -> Timeline {
        var timeline = Timeline(deviceId: TimelineTests.me)
        for message in ownMessages {
            timeline.apply(.queued(message))
            timeline.apply(.acknowledged(clientId: message.id))
        }
        for event in events { timeline.apply(event) }
        return timeline
    }

    /// The finals in order with noise: each answer's snapshots before its final, and events
    /// delivered again (a replay from an older cursor, a snapshot after its final) after their
    /// first arrival.
    func noisyDelivery(_ random: inout SplitMix64) -> [TimelineEvent] {
        var delivered: [ServerMessage] = []
        for final in finals {
            delivered += snapshots[final.id.rawValue] ?? []
            delivered.append(final)
            if random.next(upTo: 3) == 0, !delivered.isEmpty {
                // A reconnect: the server replays from an older cursor.
                let from = Int(random.next(upTo: UInt64(delivered.count)))
                delivered += delivered[from...].filter { !$0.streaming }
            }
            if random.next(upTo: 4) == 0, let late = snapshots[final.id.rawValue]?.first { delivered.append(late) }
        }
        return delivered.map(TimelineEvent.received)
    }
}
