import Testing
@_spi(Generated) @testable import WireRuntime

/// String rules judged from UTF-8 bytes: the same issues whether a check starts from a `String`
/// (generated code) or from bytes in a tape (`wire validate`), including non-ASCII text.
@Suite struct StringRuleTests {
    static let answer = ViolationAnswer(code: "invalid_message")
    static let rules: [StringRules] = [
        StringRules(minLength: 2, maxLength: 4),
        StringRules(minBytes: 2, maxBytes: 4),
        StringRules(notBlank: true),
        StringRules(prefix: "c_"),
        StringRules(pattern: WirePattern("[a-z]+_[0-9]+")),
        StringRules(format: .uuidv4),
        StringRules(format: .uuid),
        StringRules(format: .base64, maxDecodedBytes: 2),
        StringRules(format: .iso8601),
        StringRules(format: .uri),
        StringRules(constant: "é"),
        StringRules(allowedValues: ["a", "b"]),
    ]
    static let texts = [
        "", " ", "\u{00A0}\u{3000}", "\t\n", "é", "ab", "abcde", "c_1", "c\u{301}_1", "日本語テキスト", "😀😀",
        "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", "6F1C2D3E-4B5A-1C6D-8E7F-9A0B1C2D3E4F", "QUJD", "QQ==", "**",
        "2024-01-08T10:00:00Z", "https://example.com/a b", "a_1", "b",
    ]

    func issues(_ text: String, _ rules: StringRules, fromBytes: Bool) -> [String] {
        var context = ValidationContext(sizeAnswer: ViolationAnswer(code: "payload_too_large"))
        if fromBytes {
            var copy = text
            _ = copy.withUTF8 { context.check(utf8: $0, text: { text }, at: .root, rules: rules, answer: Self.answer, sizeAnswer: nil) }
        } else {
            _ = context.string(.string(text), at: .root, rules: rules, answer: Self.answer)
        }
        return context.issues.map { "\($0) \($0.rule) \($0.answer)" }
    }

    @Test(arguments: texts)
    func bytesAndStringsAgree(_ text: String) {
        for rules in Self.rules {
            #expect(issues(text, rules, fromBytes: true) == issues(text, rules, fromBytes: false), "\(text)")
        }
    }

    @Test(arguments: texts)
    func bytesGiveTheAnswersOfStringAPIs(_ text: String) {
        let scalars = text.unicodeScalars.count
        #expect(issues(text, StringRules(minLength: scalars, maxLength: scalars), fromBytes: true).isEmpty, "length is \(scalars) scalars")
        #expect(!issues(text, StringRules(maxLength: scalars - 1), fromBytes: true).isEmpty || scalars == 0)
        let blank = text.unicodeScalars.allSatisfy(\.properties.isWhitespace)
        #expect(issues(text, StringRules(notBlank: true), fromBytes: true).isEmpty == !blank, "blank: \(blank)")
        #expect(issues(text, StringRules(prefix: "c_"), fromBytes: true).isEmpty == text.utf8.starts(with: "c_".utf8))
    }

    /// Rules of lengths alone pass a string from its byte count where any bytes would pass; the
    /// answers are those of counting its scalars, for scalars of one to four bytes, mixed, at
    /// every length around the bounds.
    @Test func lengthRulesGiveTheAnswersOfCounting() {
        let limits: [(minLength: Int?, maxLength: Int?, minBytes: Int?, maxBytes: Int?)] = [
            (2, 4, nil, nil), (1, nil, nil, nil), (nil, 3, nil, nil), (nil, nil, 2, 6), (3, 5, 4, 9), (0, 0, nil, nil), (5, nil, nil, 8),
        ]
        let pieces = ["a", "é", "語", "😀"]
        for limit in limits {
            let rules = StringRules(minLength: limit.minLength, maxLength: limit.maxLength, minBytes: limit.minBytes, maxBytes: limit.maxBytes)
            for count in 0...10 {
                for first in pieces.indices {
                    // `count` scalars, cycling through the four widths from `first`.
                    let text = (0..<count).map { pieces[(first + $0) % pieces.count] }.joined()
                    let (scalars, bytes) = (text.unicodeScalars.count, text.utf8.count)
                    var expected: [String] = []
                    if let minimum = limit.minLength, scalars < minimum { expected.append("minLength") }
                    if let maximum = limit.maxLength, scalars > maximum { expected.append("maxLength") }
                    if let minimum = limit.minBytes, bytes < minimum { expected.append("minBytes") }
                    if let maximum = limit.maxBytes, bytes > maximum { expected.append("maxBytes") }
                    var context = ValidationContext(sizeAnswer: ViolationAnswer(code: "payload_too_large"))
                    var copy = text
                    let passed = copy.withUTF8 {
                        context.check(utf8: $0, text: { text }, at: .root, rules: rules, answer: Self.answer, sizeAnswer: nil)
                    }
                    #expect(context.issues.map(\.rule) == expected && passed == expected.isEmpty, "\(limit) \(text)")
                }
            }
        }
    }

    @Test func countsAndBlanksAreUnicodeAware() {
        #expect(issues("日本語テキスト", StringRules(maxLength: 7), fromBytes: true).isEmpty, "seven characters, 21 bytes")
        #expect(issues("\u{00A0}\u{3000}", StringRules(notBlank: true), fromBytes: true).map { $0.hasSuffix("notBlank invalid_message") } == [true])
        #expect(issues("\u{00A0}x", StringRules(notBlank: true), fromBytes: true).isEmpty)
        #expect(
            issues("abcde", StringRules(maxBytes: 4), fromBytes: true).first?.hasSuffix("maxBytes payload_too_large") == true,
            "size rules answer with the size code")
    }

    /// A prefix or a UUID format beside length limits is decided inline from the bytes when the
    /// byte count is a sure one (`StringRules.surelyPasses`); the answers are those of the string
    /// APIs, at the length bounds, for texts that pass and texts that miss by one byte.
    @Test func quickRulesGiveTheAnswersOfStringAPIs() {
        func isUUID(_ text: String, version4: Bool) -> Bool {
            let bytes = Array(text.utf8)
            guard bytes.count == 36 else { return false }
            for (position, byte) in bytes.enumerated() {
                let dash = [8, 13, 18, 23].contains(position)
                guard dash ? byte == UInt8(ascii: "-") : Character(UnicodeScalar(byte)).isHexDigit else { return false }
            }
            return !version4 || (bytes[14] == UInt8(ascii: "4") && "89abAB".utf8.contains(bytes[19]))
        }
        let uuid = "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
        let texts = [
            "", "c", "c_", "c_1", "c_12", "c_123", "C_1", "_c1", "c-1", "c_é", "s_1", "s_" + uuid, uuid, uuid.uppercased(),
            String(uuid.dropLast()), uuid + "0", uuid.replacingOccurrences(of: "4c6d", with: "1c6d"),
            uuid.replacingOccurrences(of: "8e7f", with: "7e7f"), uuid.replacingOccurrences(of: "-4b5a", with: "x4b5a"),
            uuid.replacingOccurrences(of: "f", with: "g"),
        ]
        for text in texts {
            let scalars = text.unicodeScalars.count
            let bytes = text.utf8.count
            let cases: [(StringRules, Bool)] = [
                (StringRules(minLength: 3, prefix: "c_"), text.hasPrefix("c_") && scalars >= 3),
                (StringRules(maxLength: 4, prefix: "c_"), text.utf8.starts(with: "c_".utf8) && scalars <= 4),
                (StringRules(minBytes: 3, maxBytes: 38, prefix: "s_"), text.utf8.starts(with: "s_".utf8) && (3...38).contains(bytes)),
                (StringRules(format: .uuid), isUUID(text, version4: false)),
                (StringRules(maxLength: 36, format: .uuid), isUUID(text, version4: false)),
                (StringRules(format: .uuidv4), isUUID(text, version4: true)),
                (StringRules(minLength: 1, format: .uuidv4), isUUID(text, version4: true)),
            ]
            for (rules, passes) in cases {
                var copy = text
                let surely = copy.withUTF8 { rules.surelyPasses($0) }
                #expect(issues(text, rules, fromBytes: true).isEmpty == passes, "\(text)")
                // The quick answer is never a pass the full rules would refuse.
                #expect(!surely || passes, "\(text)")
            }
        }
    }
}
