import Foundation
import Testing
import WireTestSupport

@_spi(Generated) @testable import WireRuntime

/// A `normalized` uniqueness rule compares `base64` strings by the bytes they decode to: every
/// text of the same bytes (padded or not, with white space, with unused low bits set in its last
/// symbol) hashes alike, and texts of different bytes do not.
@Suite struct NormalizedBase64HashTests {
    /// The normalized hash of `text` as a JSON string, read as `base64` (or with no shape).
    func hash(_ text: String, shape: ValueShape? = .base64) throws -> Int {
        var tape = JSONTape()
        try tape.parse(JSONWriter.string(.string(text)))
        var hash = JSONTape.ValueHash()
        tape.withView { $0.normalizedHash(JSONTape.root, shape: shape, into: &hash) }
        return hash.value
    }

    /// Texts that decode to `bytes`: Foundation's, unpadded, with white space in three places,
    /// and with the unused low bits of the last symbol set. (No bytes are only the empty text:
    /// white space alone is not base64.)
    func spellings(of bytes: [UInt8]) -> [String] {
        guard !bytes.isEmpty else { return [""] }
        let padded = Data(bytes).base64EncodedString()
        let unpadded = String(padded.prefix { $0 != "=" })
        var spellings = [padded, unpadded, " " + padded, unpadded + "\n", String(padded.enumerated().flatMap { [$1] + ($0 % 3 == 2 ? ["\t"] : []) })]
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        if let last = unpadded.last, let value = alphabet.firstIndex(of: last), unpadded.count % 4 != 0 {
            // After two symbols the last one's low four bits decode to nothing; after three, its low two.
            let unused = unpadded.count % 4 == 2 ? 0b1111 : 0b11
            spellings.append(String(unpadded.dropLast()) + String(alphabet[value | unused]) + String(padded.drop { $0 != "=" }))
        }
        return spellings
    }

    @Test func spellingsOfTheSameBytesHashAlikeAndOtherBytesDoNot() throws {
        var generator = SplitMix64.forTest(seed: 0x4841_5348)
        var seen: [Int: [UInt8]] = [:]
        let inputs = (0...40).flatMap { length in
            (0..<3).map { _ in (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        }
        for bytes in inputs {
            let hashes = try spellings(of: bytes).map { try hash($0) }
            #expect(Set(hashes).count == 1, "\(bytes): \(spellings(of: bytes))")
            if let earlier = seen[hashes[0]] { #expect(earlier == bytes, "\(bytes) and \(earlier) hash alike") }
            seen[hashes[0]] = bytes
        }
    }

    @Test(arguments: ["Q", "QQ=", "QQ===", "QUJD=", "QU-D", " ", "==", "QUJDQUJD*QUJ", "QUJDQUJDQ"])
    func textThatIsNotBase64HashesAsItsText(_ text: String) throws {
        #expect(try hash(text) == (try hash(text, shape: nil)))
        var copy = text
        #expect(copy.withUTF8 { WireFormats.compactBase64Symbols($0) } == nil)
    }

    @Test func compactTextIsCountedAndWhiteSpaceIsLeftToTheFullScan() {
        func symbols(_ text: String) -> Int? {
            var copy = text
            return copy.withUTF8 { WireFormats.compactBase64Symbols($0) }
        }
        #expect(symbols("") == 0)
        #expect(symbols("QQ==") == 2 && symbols("QQ") == 2 && symbols("QUI=") == 3 && symbols("QUJDQUJDQUJD") == 12)
        #expect(symbols("QU JD") == nil && symbols("QUJD\n") == nil, "white space goes to the full scan")
    }
}
