import ClawlineClient
import Foundation
import Testing
import WireRuntime

/// The checker finds each kind of broken history, and passes a sound one: the fault suite's
/// verdicts are only as good as this.
@Suite("The history checker")
struct HistoryCheckerTests {
    private static let start = Date(timeIntervalSince1970: 1_800_000_000)

    private static func frame(_ socket: String, _ direction: FrameDirection, _ text: String) -> ObservedFrame {
        ObservedFrame(connection: socket, direction: direction, text: text, timestamp: start)
    }

    private static func sent(_ id: String, _ content: String, on socket: String = "chat-1") -> [ObservedFrame] {
        [
            frame(socket, .client, #"{"type":"message","id":"\#(id)","content":"\#(content)"}"#),
            frame(socket, .server, #"{"type":"ack","id":"\#(id)"}"#),
        ]
    }

    private static func event(_ id: String, _ content: String, on socket: String = "chat-1", streaming: Bool = false) -> ObservedFrame {
        frame(socket, .server, #"{"type":"message","id":"\#(id)","role":"user","content":"\#(content)","streaming":\#(streaming)}"#)
    }

    private static let store = [
        StoredEvent(id: "s_1", account: "u", role: "user", content: "one"),
        StoredEvent(id: "s_2", account: "u", role: "user", content: "two"),
    ]

    private static func devices(phone: [ObservedFrame], tablet: [ObservedFrame]) -> [DeviceHistory] {
        let histories = [DeviceHistory(account: "u", device: "phone"), DeviceHistory(account: "u", device: "tablet")]
        histories[0].record(phone)
        histories[1].record(tablet)
        return histories
    }

    @Test("A sound history: every acknowledged message reached both devices once, in the store's order")
    func soundHistory() {
        let report = HistoryChecker.check(
            Self.devices(
                phone: Self.sent("c_1", "one") + [Self.event("s_1", "one"), Self.event("s_2", "two")],
                tablet: Self.sent("c_2", "two", on: "chat-2") + [Self.event("s_1", "one", on: "chat-2"), Self.event("s_2", "two", on: "chat-2")]),
            store: Self.store)
        #expect(report.violations.isEmpty, "\(report.violations)")
        #expect(report.sent == 2 && report.acknowledged == 2 && report.delivered == 4)
    }

    @Test("An acknowledged message a device never got is missing; one the store lacks is acknowledged but not stored")
    func missingAndUnstored() {
        let report = HistoryChecker.check(
            Self.devices(
                phone: Self.sent("c_1", "one") + Self.sent("c_3", "three") + [Self.event("s_1", "one"), Self.event("s_2", "two")],
                tablet: Self.sent("c_2", "two") + [Self.event("s_2", "two")]),
            store: Self.store)
        #expect(report.missing == 1)
        #expect(report.acknowledgedNotStored == 1)
        #expect(report.storedNotDelivered == 1)
        #expect(report.violations.contains { $0.contains("tablet never got s_1") })
    }

    @Test("A final event twice on one socket is doubled; on two sockets (a replay after a reconnect) it is not")
    func doubled() {
        let report = HistoryChecker.check(
            Self.devices(
                phone: Self.sent("c_1", "one") + [Self.event("s_1", "one"), Self.event("s_1", "one"), Self.event("s_2", "two")],
                tablet: [Self.event("s_1", "one"), Self.event("s_2", "two"), Self.event("s_1", "one", on: "chat-2")]),
            store: Self.store)
        #expect(report.doubled == 1)
        #expect(report.violations == ["phone got s_1 twice on chat-1"])
    }

    @Test("Snapshots of a stream before its final are not doubles")
    func snapshotsAreNotDoubles() {
        let report = HistoryChecker.check(
            Self.devices(
                phone: [Self.event("s_1", "o", streaming: true), Self.event("s_1", "one"), Self.event("s_2", "two")],
                tablet: [Self.event("s_1", "one"), Self.event("s_2", "two")]),
            store: Self.store)
        #expect(report.violations.isEmpty, "\(report.violations)")
    }

    @Test("Events on one socket out of the store's order are reordered")
    func reordered() {
        let report = HistoryChecker.check(
            Self.devices(
                phone: [Self.event("s_2", "two"), Self.event("s_1", "one")],
                tablet: [Self.event("s_1", "one"), Self.event("s_2", "two")]),
            store: Self.store)
        #expect(report.reordered == 1)
        #expect(report.orderViolations == ["phone got s_1 on chat-1 after an event the store committed later"])
        #expect(report.violations.isEmpty)
    }

    @Test("A message refused with an error naming it counts as refused, not acknowledged")
    func refused() {
        let refusal = [
            Self.frame("chat-1", .client, #"{"type":"message","id":"c_9","content":"nine"}"#),
            Self.frame("chat-1", .server, #"{"type":"error","code":"server_error","message":"x","messageId":"c_9"}"#),
        ]
        let report = HistoryChecker.check(
            Self.devices(
                phone: refusal + [Self.event("s_1", "one"), Self.event("s_2", "two")], tablet: [Self.event("s_1", "one"), Self.event("s_2", "two")]),
            store: Self.store)
        #expect(report.refused == 1 && report.acknowledged == 0)
        #expect(report.missing == 0, "a refused message is not owed to anyone")
        #expect(report.violations.isEmpty, "\(report.violations)")
    }
}
