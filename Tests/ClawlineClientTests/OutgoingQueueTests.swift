import ClawlineProtocol
import Testing

@testable import ClawlineClient

/// The outgoing queue as a value: order, one message in flight, retries, the spec's message rate.
@Suite("Outgoing queue")
struct OutgoingQueueTests {
    static func message(_ id: String) -> PendingMessage { PendingMessage(id: id, content: id, attachments: []) }

    @Test("one message in flight at a time, in the stored order; an ack lets the next go")
    func orderAndOneInFlight() {
        var queue = OutgoingQueue([Self.message("c_1")])
        queue.enqueue(Self.message("c_2"))
        let first = queue.next(at: .zero)
        #expect(first == .send(Self.message("c_1")))
        let whileInFlight = queue.next(at: .zero)
        #expect(whileInFlight == .idle, "c_1 is in flight")
        let acknowledged = queue.acknowledged("c_1")
        #expect(acknowledged)
        let second = queue.next(at: .zero)
        #expect(second == .send(Self.message("c_2")))
        let unknown = queue.acknowledged("c_9")
        #expect(!unknown, "an ack of something not queued changes nothing")
    }

    @Test("a message not accepted this time, or whose socket ended, is sent again with the same id")
    func sendAgain() {
        var queue = OutgoingQueue([Self.message("c_1"), Self.message("c_2")])
        _ = queue.next(at: .zero)
        queue.sendAgain("c_1")
        let retried = queue.next(at: .seconds(1))
        #expect(retried == .send(Self.message("c_1")))
        queue.connectionEnded()
        #expect(queue.inFlight == nil)
        let onTheNextSocket = queue.next(at: .seconds(2))
        #expect(onTheNextSocket == .send(Self.message("c_1")))
        let refused = queue.refused("c_1")
        #expect(refused && queue.pending.map(\.id) == ["c_2"] && queue.inFlight == nil)
    }

    @Test("the spec's message rate: past its limit the queue says how long to wait")
    func rate() {
        let rule = Clawline.RateLimits.message
        var queue = OutgoingQueue((0...rule.limit).map { Self.message("c_\($0)") })
        for index in 0..<rule.limit {
            let step = queue.next(at: .zero)
            #expect(step == .send(Self.message("c_\(index)")))
            queue.acknowledged("c_\(index)")
        }
        let limited = queue.next(at: .zero)
        #expect(limited == .wait(rule.window ?? .zero))
        let later = queue.next(at: rule.window ?? .zero)
        #expect(later == .send(Self.message("c_\(rule.limit)")))
    }
}
