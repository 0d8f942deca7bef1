import Testing
import WireRuntime

/// The UUID formats read each byte through a table: every position is checked, in either case,
/// and a dash or a non-hex byte anywhere else fails.
@Suite struct UUIDFormatTests {
    static let valid = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"

    @Test(arguments: [valid, valid.uppercased(), "00000000-0000-0000-0000-000000000000", "ffffffff-FFFF-aAaA-9999-abcdefABCDEF"])
    func acceptsEveryHexDigitInEitherCase(_ text: String) {
        #expect(WireFormats.isUUID(text))
    }

    @Test func rejectsEachPositionThatIsNotAHexDigitOrNotADash() {
        let bytes = Array(Self.valid.utf8)
        for position in bytes.indices {
            let isDash = [8, 13, 18, 23].contains(position)
            for replacement in ["g", "G", "-", " ", "\u{e9}", "0"] {
                var text = bytes
                text.replaceSubrange(position...position, with: Array(replacement.utf8))
                let expected = text.count == 36 && (isDash ? replacement == "-" : "0123456789abcdefABCDEF".contains(replacement))
                #expect(WireFormats.isUUID(String(decoding: text, as: UTF8.self)) == expected, "\(replacement) at \(position)")
            }
        }
    }

    @Test(arguments: ["", String(valid.dropLast()), valid + "0", "{" + valid + "}", valid.replacingOccurrences(of: "-", with: "")])
    func rejectsOtherLengths(_ text: String) {
        #expect(!WireFormats.isUUID(text))
    }

    @Test func version4NeedsItsVersionAndVariant() {
        #expect(WireFormats.isUUIDv4(Self.valid))
        #expect(!WireFormats.isUUIDv4("6f1c2d3e-4b5a-1c6d-8e7f-9a0b1c2d3e4f"), "version 1")
        #expect(!WireFormats.isUUIDv4("6f1c2d3e-4b5a-4c6d-ce7f-9a0b1c2d3e4f"), "variant c")
    }
}
