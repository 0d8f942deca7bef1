import Foundation
import Testing
import WireRuntime
import WireTestSupport

/// Lenient base64: padding optional but complete when present, ASCII white space ignored (but
/// white space alone is not base64); the decoder agrees with Foundation and with its own length
/// count on every input it accepts.
@Suite struct Base64Tests {
    /// The decoder's count and the bytes it handed out.
    static func decode(_ text: String) -> (count: Int?, bytes: [UInt8]) {
        var copy = text
        var bytes: [UInt8] = []
        let count = copy.withUTF8 { WireFormats.decodeBase64(bytes: $0) { bytes.append($0) } }
        return (count, bytes)
    }

    @Test(arguments: [
        ("", ""), ("QQ==", "A"), ("QQ", "A"), ("QUI=", "AB"), ("QUI", "AB"), ("QUJD", "ABC"),
        ("QU JD\n", "ABC"), ("aVZCT1J3MEtHZ289", "iVBORw0KGgo="),
    ])
    func acceptsStandardAndUnpaddedText(_ text: String, _ expected: String) {
        let decoded = Self.decode(text)
        #expect(decoded.count == expected.utf8.count)
        #expect(decoded.bytes == Array(expected.utf8))
        #expect(WireFormats.decodedBase64Length(text) == expected.utf8.count)
    }

    @Test(arguments: [
        "Q", "QQ=", "QQ===", "Q===", "QQ==QQ", "QUJD=", "**", "QU-D", "QU_D", " ", "\n\t ",
        // After whole groups of eight symbols (read eight at a time), the same rules hold.
        "QUJDQUJD*QUJ", "QUJDQUJDQUJD-UJD", "QUJDQUJDQ", "QUJDQUJDQUJDQQ==QQ", "QUJDQUJDQUJDQ===",
    ])
    func rejectsWhatIsNotBase64(_ text: String) {
        let decoded = Self.decode(text)
        #expect(decoded.count == nil)
        #expect(decoded.bytes.isEmpty, "nothing is handed out before the text is known to be base64")
        #expect(WireFormats.decodedBase64Length(text) == nil)
    }

    @Test func agreesWithFoundationOnRandomBytes() {
        var generator = SplitMix64.forTest(seed: 0x4236_3434)
        for length in 0..<160 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Data(bytes).base64EncodedString()
            // White space inside a group of eight, and a line break every 76 symbols (MIME's).
            let spaced = text.count > 9 ? String(text.prefix(9)) + " " + String(text.dropFirst(9)) : text
            let wrapped = stride(from: 0, to: text.count, by: 76).map { String(text.dropFirst($0).prefix(76)) }.joined(separator: "\r\n")
            for form in [text, text.replacingOccurrences(of: "=", with: ""), spaced, wrapped] {
                let decoded = Self.decode(form)
                #expect(decoded.count == length)
                #expect(decoded.bytes == bytes)
            }
        }
    }
}
