import Foundation
import Testing
import WireTestSupport

@testable @_spi(Generated) import WireRuntime

/// `WirePattern` matches simple patterns on UTF-8 bytes and gives the same answer as
/// `NSRegularExpression` on every text; other patterns go to the engine.
@Suite struct WirePatternTests {
    /// The engine's answer for a whole-string match.
    static func engine(_ pattern: String, _ text: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: "^(?:\(pattern))$") else { return false }
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)) != nil
    }

    static let simplePatterns = [
        "a_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", "[a-z0-9-]+", "[a-z]+_[0-9]+", "ab?c*d+",
        "x{2,4}y{0,}z{1}", "\\d{3}\\.\\w+", "[-a]b[a-]", "a*a*a", "[ab]*b[ab]{2}", "c_",
    ]

    @Test(arguments: simplePatterns)
    func simplePatternsCompile(_ pattern: String) {
        #expect(WirePattern(pattern).simple != nil)
    }

    @Test(arguments: ["(ab)+", "a|b", "a.c", "[^a]", "^a$", "a+?", "[a-c-e]", "\\s+", "é+", "a{,3}", "[[:alpha:]]"])
    func otherPatternsGoToTheEngine(_ pattern: String) {
        #expect(WirePattern(pattern).simple == nil)
    }

    /// Every pattern against texts made from its own alphabet and a few strangers, exhaustively up
    /// to a length and then at random.
    @Test(arguments: simplePatterns)
    func agreesWithTheEngine(_ pattern: String) {
        let compiled = WirePattern(pattern)
        let alphabet = Array("aAbcdxyz_-.09fF9é")
        var generator = SplitMix64.forTest(seed: 0x5041_5431)
        var texts: [String] = [""]
        var frontier = [""]
        for _ in 0..<3 {
            frontier = frontier.flatMap { prefix in alphabet.map { prefix + String($0) } }
            texts += frontier
        }
        for _ in 0..<2_000 {
            texts.append(String((0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        texts += ["a_0123abcd-0123-4567-89ab-0123456789AB", "a_0123abcd-0123-4567-89ab-0123456789ABC", "abc-123", "xxxyyz", "123.abc_9"]
        var matched = 0
        for text in texts {
            let expected = Self.engine(pattern, text)
            #expect(compiled.matches(text) == expected, "\(pattern) on \(text)")
            if expected { matched += 1 }
        }
        #expect(matched > 0, "some texts of \(pattern) match")
    }

    /// Every pattern the byte matcher takes is one the engine compiles, so the simple form needs
    /// no engine to check it, and `isValid` says what the engine says: random patterns of letters,
    /// digits and the syntax the two forms use.
    @Test func theSimpleFormIsValidForTheEngine() {
        let alphabet = Array("ab0-_[]{},\\d.*+?^$|()w5 !&")
        var generator = SplitMix64.forTest(seed: 0x5041_5432)
        var simple = 0
        // Patterns random runs found before: signed or spaced counts, and `--` in a class (ICU's
        // set difference).
        let found = ["5d{+0}", "a{-1}", "a{ 1}", "a{1 }", "a{1,+2}", "a{01}", "[--]", "[a--]", "[--a]", "[!--]", "[a-\\-]", "[\\--]"]
        let random = (0..<20_000).map { _ in
            String((0..<Int.random(in: 1...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        for pattern in found + random {
            let engineTakes = (try? NSRegularExpression(pattern: "^(?:\(pattern))$")) != nil
            if ByteClassRun.compile(pattern) != nil {
                simple += 1
                #expect(engineTakes, "the simple form took \(pattern), which the engine refuses")
            }
            #expect(WirePattern.isValid(pattern) == ((try? NSRegularExpression(pattern: pattern)) != nil), "\(pattern)")
        }
        #expect(simple > 1_000, "enough random patterns had the simple form")
    }

    /// A simple pattern on ASCII texts never asks the engine; a non-ASCII text, or a pattern the
    /// byte matcher does not take, does.
    @Test func theEngineIsCompiledOnlyWhenATextNeedsIt() {
        let simple = WirePattern("[a-z]+_[0-9]+")
        #expect(simple.matches("abc_12") && !simple.matches("abc-12"))
        #expect(!simple.hasCompiledExpression)
        #expect(!simple.matches("abé_12"))
        #expect(simple.hasCompiledExpression)
        let other = WirePattern("(ab)+")
        #expect(!other.hasCompiledExpression)
        #expect(other.matches("abab"))
        #expect(other.hasCompiledExpression)
        #expect(!WirePattern("(a").matches("(a"), "a pattern that does not compile matches nothing")
    }

    /// A non-ASCII text is the engine's to judge (`\d` takes other scripts' digits there).
    @Test func nonASCIITextGoesToTheEngine() {
        #expect(WirePattern("\\d+").matches("١٢٣") == Self.engine("\\d+", "١٢٣"))
        #expect(WirePattern("[a-z]+").matches("aé") == false)
    }

    /// Each pattern is matched the cheapest way that is exact for it: one greedy pass when no run
    /// can leave a byte of its set to a run after it (fixed counts among them), by positions
    /// otherwise.
    @Test func eachPatternGetsTheCheapestExactStrategy() {
        let expected: [(String, SimplePattern.Strategy)] = [
            ("c_", .greedy), ("a_[0-9a-f]{8}-[0-9a-f]{4}", .greedy), ("[a-z]+_[0-9]+", .greedy), ("c_[A-Za-z0-9]{1,64}", .greedy),
            ("ab?c*d+", .greedy), ("x{2,4}y{0,}z{1}", .greedy), ("\\d{3}\\.\\w+", .greedy),
            ("a*a*a", .positions), ("[ab]*b[ab]{2}", .positions), ("a?b?a", .positions), ("[a-z]+[0-9]?x", .positions),
        ]
        for (pattern, strategy) in expected {
            #expect(WirePattern(pattern).simple?.strategy == strategy, "\(pattern)")
        }
    }

    /// Wherever the greedy pass is chosen, it agrees with the matcher by positions: random simple
    /// patterns over a small alphabet (so that runs' sets overlap often) on random texts.
    @Test func theGreedyPassAgreesWithPositionsWhereItIsChosen() {
        let atoms = ["a", "b", "c", "[ab]", "[bc]", "[a-c]", "\\d", "1"]
        let counts = ["", "?", "*", "+", "{2}", "{1,3}", "{0,2}", "{2,}"]
        var generator = SplitMix64.forTest(seed: 0x5041_5433)
        var greedy = 0
        for _ in 0..<3_000 {
            let pattern = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                atoms.randomElement(using: &generator)! + counts.randomElement(using: &generator)!
            }.joined()
            guard let simple = WirePattern(pattern).simple, simple.strategy == .greedy else { continue }
            greedy += 1
            for _ in 0..<40 {
                let text = Array((0..<Int.random(in: 0...8, using: &generator)).map { _ in Array("abc12").randomElement(using: &generator)! })
                let bytes = Array(String(text).utf8)
                let byPositions = bytes.withUnsafeBufferPointer { SimplePattern.matchesByPositions(simple.runs, $0) }
                let greedily = bytes.withUnsafeBufferPointer { SimplePattern.matchesGreedily(simple.runs, $0) }
                #expect(greedily == byPositions, "\(pattern) on \(String(text))")
            }
        }
        #expect(greedy > 300, "enough random patterns took the greedy pass")
    }

    /// Long texts are matched in time linear in their length, without backtracking.
    @Test func longTextsMatch() {
        let text = String(repeating: "a", count: 100_000) + "b"
        #expect(WirePattern("a*a*a*b").matches(text))
        #expect(!WirePattern("a*a*a*c").matches(text))
    }
}
