import Foundation
import Testing

@testable import ClawlineServer

/// The UUIDs the server mints without Foundation's `UUID()`.
@Suite struct RandomUUIDTests {
    @Test func versionFourUUIDsAreRandomLowercaseAndReadByFoundation() throws {
        let minted = (0..<200).map { _ in RandomUUID.version4() }
        #expect(Set(minted).count == minted.count)
        for uuid in minted {
            let text = uuid.lowercased
            #expect(text.utf8.count == 36)
            #expect(text == text.lowercased())
            let bytes = try #require(UUID(uuidString: text)?.uuid)
            // Version 4, RFC 9562 variant, and the text is the bits'.
            #expect(bytes.6 >> 4 == 4)
            #expect(bytes.8 & 0xC0 == 0x80)
            #expect(UUID(uuid: bytes).uuidString.lowercased() == text)
        }
    }

    @Test func theTextSpellsTheBitsMostSignificantFirst() {
        let uuid = RandomUUID(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        #expect(uuid.lowercased == "01234567-89ab-cdef-fedc-ba9876543210")
    }

    @Test func versionSevenUUIDsStartWithTheirMilliseconds() throws {
        let uuid = RandomUUID.version7(unixMilliseconds: 0x018C_E65E_7800)
        #expect(uuid.lowercased.hasPrefix("018ce65e-7800-7"))
        let bytes = try #require(UUID(uuidString: uuid.lowercased)?.uuid)
        #expect(bytes.8 & 0xC0 == 0x80)
        // Only the 48 bits of the time are kept.
        #expect(RandomUUID.version7(unixMilliseconds: 0xFFFF_0000_0000_0001).lowercased.hasPrefix("00000000-0001-7"))
    }
}
