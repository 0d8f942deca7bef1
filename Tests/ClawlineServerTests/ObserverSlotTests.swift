import NIOConcurrencyHelpers
import Testing

@testable import ClawlineServer

/// `ObserverSlot`: the callback the store and the cluster bus report to the server's metrics.
@Suite struct ObserverSlotTests {
    /// The address of a local of the frame that calls this, a stand-in for the stack's depth.
    @inline(never)
    static func stackAddress() -> UInt {
        var marker = 0
        return withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
    }

    @Test("The callback runs at the same stack depth on the 20,000th report as on the first, and is told every value")
    func reportsDoNotDeepenTheStack() {
        let slot = ObserverSlot<Int>()
        slot.report(-1)  // nothing set: goes nowhere
        let seen = NIOLockedValueBox((count: 0, sum: 0, first: UInt(0), last: UInt(0)))
        slot.set { value in
            let address = Self.stackAddress()
            seen.withLockedValue { seen in
                if seen.count == 0 { seen.first = address }
                seen.last = address
                seen.count += 1
                seen.sum += value
            }
        }
        // A function value stored straight in a generic lock gained two thunks per access, so
        // each report ran a frame deeper than the one before it (20,000 reports: about a
        // megabyte of stack, and seconds of thunks).
        for value in 1...20_000 { slot.report(value) }
        let result = seen.withLockedValue { $0 }
        #expect(result.count == 20_000)
        #expect(result.sum == 20_000 * 20_001 / 2)
        #expect(result.first == result.last, "the stack moved \(Int(bitPattern: result.first) - Int(bitPattern: result.last)) bytes")
    }

    @Test("A callback set later replaces the one before")
    func replacing() {
        let slot = ObserverSlot<String>()
        let seen = NIOLockedValueBox<[String]>([])
        slot.set { value in seen.withLockedValue { $0.append("first \(value)") } }
        slot.report("a")
        slot.set { value in seen.withLockedValue { $0.append("second \(value)") } }
        slot.report("b")
        #expect(seen.withLockedValue { $0 } == ["first a", "second b"])
    }
}
