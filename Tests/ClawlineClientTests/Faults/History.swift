import ClawlineClient
import Foundation
import NIOConcurrencyHelpers
import WireRuntime

/// Everything one device's sockets sent and received during a fault run, frame by frame, with the
/// socket each frame crossed: what ``HistoryChecker`` judges.
final class DeviceHistory: Sendable {
    /// The device's account (the `userId` its pairing gave).
    let account: String
    let device: String
    private let recorded = NIOLockedValueBox<[ObservedFrame]>([])

    init(account: String, device: String) {
        self.account = account
        self.device = device
    }

    /// An observer to hand the device's ``ChatService``.
    var observer: FrameObserver {
        { [recorded] frame in recorded.withLockedValue { $0.append(frame) } }
    }

    /// Every frame so far, in the order the client saw them.
    var frames: [ObservedFrame] { recorded.withLockedValue { $0 } }

    /// Adds frames (a checker test builds histories by hand).
    func record(_ frames: [ObservedFrame]) { recorded.withLockedValue { $0 += frames } }

    /// The time the first `ack` came after `date`, on any of the device's sockets.
    func firstAcknowledgement(after date: Date) -> Date? {
        frames.first(where: { $0.direction == .server && $0.timestamp > date && HistoryFrame($0.text)?.type == "ack" })?.timestamp
    }
}

/// An event as the store holds it: its id, its account, and the frame's role and content.
struct StoredEvent: Sendable, Hashable {
    var id: String
    var account: String
    var role: String
    var content: String
}

/// The fields of a frame the checker reads.
struct HistoryFrame {
    var type: String
    var id: String?
    var role: String?
    var content: String?
    var streaming: Bool?
    var code: String?
    var messageId: String?

    init?(_ text: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let type = object["type"] as? String
        else { return nil }
        self.type = type
        id = object["id"] as? String
        role = object["role"] as? String
        content = object["content"] as? String
        streaming = object["streaming"] as? Bool
        code = object["code"] as? String
        messageId = object["messageId"] as? String
    }
}

/// What a fault run's history shows, in counts, and each violation of the delivery guarantee in
/// words. ``violations`` is empty when the guarantee held.
struct HistoryReport: CustomStringConvertible {
    /// Distinct messages the devices sent (a retry is the same message).
    var sent = 0
    /// Distinct messages the provider acknowledged.
    var acknowledged = 0
    /// Messages the provider refused at least once with an `error` naming them (a retry may
    /// have been acknowledged later).
    var refused = 0
    /// Final events received, counted once per device.
    var delivered = 0
    /// (device, acknowledged message) pairs where the device never got the message's event.
    var missing = 0
    /// Final events that came twice on one socket.
    var doubled = 0
    /// Final events that came on a socket before an event the store committed earlier.
    var reordered = 0
    /// Acknowledged messages the store does not hold.
    var acknowledgedNotStored = 0
    /// (device, stored event) pairs where the device ended without the event.
    var storedNotDelivered = 0
    /// What broke the guarantee, one line each (at most a few per kind), order aside.
    var violations: [String] = []
    /// Events that reached a socket out of the store's order, one line each (at most a few).
    var orderViolations: [String] = []

    var description: String {
        "sent \(sent), acknowledged \(acknowledged), refused \(refused), delivered \(delivered), missing \(missing), "
            + "doubled \(doubled), reordered \(reordered), acknowledged but not stored \(acknowledgedNotStored), "
            + "stored but not delivered \(storedNotDelivered)"
    }
}

/// Checks the histories of an account's devices against the store, after the final reconnect and
/// replay:
///
/// - every acknowledged message is in the store, and its event reached every device of its account;
/// - no socket got a final event twice;
/// - each socket got final events in the order the store committed them;
/// - every device of an account ends with every event the store holds for it, so all end with the same events.
enum HistoryChecker {
    static func check(_ histories: [DeviceHistory], store: [StoredEvent]) -> HistoryReport {
        var report = HistoryReport()
        let position = Dictionary(store.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        var note: [String: Int] = [:]
        func violation(_ kind: String, _ text: String) {
            note[kind, default: 0] += 1
            guard note[kind]! <= 5 else { return }
            if kind == "reordered" { report.orderViolations.append(text) } else { report.violations.append(text) }
        }
        for (account, devices) in Dictionary(grouping: histories, by: \.account).sorted(by: { $0.key < $1.key }) {
            let storedUserEvents = Dictionary(
                store.filter { $0.account == account && $0.role == "user" }.map { ($0.content, $0.id) }, uniquingKeysWith: { first, _ in first })
            var acknowledgedContents: [String] = []
            var deliveredByDevice: [String: Set<String>] = [:]
            for history in devices {
                let frames = history.frames.compactMap { frame in HistoryFrame(frame.text).map { (frame, $0) } }
                var sentContent: [String: String] = [:]
                var acknowledgedIDs = Set<String>()
                var refusedIDs = Set<String>()
                var delivered = Set<String>()
                var finalsBySocket: [String: [String]] = [:]
                for (observed, frame) in frames {
                    switch (observed.direction, frame.type) {
                    case (.client, "message"):
                        if let id = frame.id { sentContent[id] = frame.content ?? "" }
                    case (.server, "ack"):
                        if let id = frame.id { acknowledgedIDs.insert(id) }
                    case (.server, "error"):
                        if let id = frame.messageId { refusedIDs.insert(id) }
                    case (.server, "message") where frame.streaming == false:
                        guard let id = frame.id else { continue }
                        delivered.insert(id)
                        finalsBySocket[observed.connection, default: []].append(id)
                    default: continue
                    }
                }
                report.sent += sentContent.count
                report.acknowledged += acknowledgedIDs.count
                report.refused += refusedIDs.count
                report.delivered += delivered.count
                deliveredByDevice[history.device] = delivered
                for id in acknowledgedIDs.sorted() {
                    guard let content = sentContent[id] else { continue }
                    acknowledgedContents.append(content)
                    if storedUserEvents[content] == nil {
                        report.acknowledgedNotStored += 1
                        violation("unstored", "\(history.device) had \(id) (\"\(content)\") acknowledged, and the store does not hold it")
                    }
                }
                for (socket, finals) in finalsBySocket.sorted(by: { $0.key < $1.key }) {
                    var seen = Set<String>()
                    var last = -1
                    for id in finals {
                        if !seen.insert(id).inserted {
                            report.doubled += 1
                            violation("doubled", "\(history.device) got \(id) twice on \(socket)")
                        }
                        guard let at = position[id] else { continue }
                        if at < last {
                            report.reordered += 1
                            violation("reordered", "\(history.device) got \(id) on \(socket) after an event the store committed later")
                        }
                        last = max(last, at)
                    }
                }
            }
            for history in devices {
                let delivered = deliveredByDevice[history.device] ?? []
                for content in acknowledgedContents {
                    guard let id = storedUserEvents[content], !delivered.contains(id) else { continue }
                    report.missing += 1
                    violation("missing", "\(history.device) never got \(id) (\"\(content)\"), which was acknowledged")
                }
            }
            // Every stored event of the account (answers included) reached every device: so they all end with the same events.
            let accountEvents = Set(store.filter { $0.account == account }.map(\.id))
            for history in devices {
                let lacking = accountEvents.subtracting(deliveredByDevice[history.device] ?? [])
                if !lacking.isEmpty {
                    report.storedNotDelivered += lacking.count
                    violation("ends", "\(history.device) ends without \(lacking.count) of its account's \(accountEvents.count) stored events")
                }
            }
        }
        return report
    }
}
