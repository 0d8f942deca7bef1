import Foundation
import Testing

@testable import ClawlineServer

/// Server event ids: `s_` and a version-7 UUID, so the store's index grows at one end.
@Suite struct EventIDTests {
    @Test func eventIDsAreVersionSevenUUIDsThatSortInTheOrderOfTheirTimes() {
        let start = Date(timeIntervalSince1970: 1_704_672_000)
        // Half a millisecond past each 5 ms step, so no rounding puts two in one millisecond.
        let ids = (0..<50).map { ProviderHub.newEventID(at: start.addingTimeInterval((Double($0) * 5 + 0.5) / 1000)) }
        for id in ids {
            #expect(id.hasPrefix("s_"))
            let bytes = UUID(uuidString: String(id.dropFirst(2)))?.uuid
            #expect(bytes != nil)
            #expect(id == id.lowercased())
            // Version 7, RFC variant.
            #expect(bytes.map { $0.6 >> 4 } == 7)
            #expect(bytes.map { $0.8 & 0xC0 } == 0x80)
        }
        #expect(ids.sorted() == ids)
        #expect(Set(ids).count == ids.count)
        // The first twelve hex digits are the milliseconds since 1970.
        #expect(ids[0].dropFirst(2).prefix(13) == "018ce65e-7800")
    }
}
