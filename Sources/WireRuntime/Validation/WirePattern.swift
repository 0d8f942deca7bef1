import Foundation

/// A compiled regular expression that must match a whole string.
///
/// Most spec patterns are a row of ASCII characters and character classes with counts (an id's
/// prefix, then hex digits in groups). Those are matched on the string's UTF-8 bytes, without
/// building a `String` or running the regular-expression engine; any other pattern, and any text
/// with a non-ASCII byte, goes to `NSRegularExpression`, so both ways give the same answer.
@_spi(Generated) public final class WirePattern: Sendable {
    /// The pattern as written in the spec.
    public let source: String
    /// `^(?:source)$` for the regular-expression engine, compiled the first time a text needs it:
    /// a simple pattern matched on ASCII texts only never loads the engine (whose first use costs
    /// a process about 8 million instructions).
    private let expression: LazyExpression
    /// The pattern as byte classes with counts, when it has that simple form.
    let simple: SimplePattern?

    /// Prepares `^(?:source)$`. A pattern that does not compile matches nothing (specs are checked
    /// before generation, so this only happens with hand-made rules).
    public init(_ source: String) {
        self.source = source
        // Every pattern of the simple form is also a valid regular expression (a row of literal
        // characters, escapes and bracket classes with counts), so this needs no engine to check.
        simple = ByteClassRun.compile(source).map(SimplePattern.init)
        expression = LazyExpression(pattern: "^(?:\(source))$")
    }

    /// Whether the regular-expression engine has been asked for this pattern yet (for tests).
    var hasCompiledExpression: Bool { expression.hasCompiled }

    /// Whether `source` is a regular expression `WirePattern` can match: one of the simple form,
    /// told without the engine, or one the engine compiles.
    public static func isValid(_ source: String) -> Bool {
        ByteClassRun.compile(source) != nil || (try? NSRegularExpression(pattern: source)) != nil
    }

    /// Whether the whole text matches.
    public func matches(_ text: String) -> Bool {
        WireFormats.withUTF8(text) { bytes in matches(utf8: bytes, text: { text }) }
    }

    /// Whether the whole text, given as its UTF-8 bytes, matches; `text` builds the string only
    /// when the regular-expression engine is needed.
    public func matches(utf8 bytes: UnsafeBufferPointer<UInt8>, text: () -> String) -> Bool {
        if let simple, !bytes.contains(where: { $0 >= 0x80 }) { return simple.matches(bytes) }
        guard let expression = expression.compiled() else { return false }
        let text = text()
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.firstMatch(in: text, options: [], range: range) != nil
    }
}

/// A regular expression compiled on first use, once, whichever thread asks first.
private final class LazyExpression: @unchecked Sendable {
    private let pattern: String
    private let lock = NSLock()
    /// `nil` until the first use; then the expression, or `.some(nil)` when it does not compile.
    /// Read and written only while `lock` is held.
    private var built: NSRegularExpression??

    init(pattern: String) { self.pattern = pattern }

    var hasCompiled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return built != nil
    }

    func compiled() -> NSRegularExpression? {
        lock.lock()
        defer { lock.unlock() }
        if let built { return built }
        let expression = try? NSRegularExpression(pattern: pattern)
        built = .some(expression)
        return expression
    }
}

/// A pattern of the simple form (``ByteClassRun``s) and how texts are matched against it, chosen
/// once when the pattern is compiled.
struct SimplePattern: Sendable {
    /// How a text is matched against the runs.
    enum Strategy: Sendable, Equatable {
        /// Each run can take only as many bytes as it finds (see ``greedyIsExact(_:)``; every
        /// pattern of fixed counts is such a pattern): one pass, each run taking all it can.
        case greedy
        /// Runs whose sets overlap: every position each prefix of the runs can end at is kept.
        case positions
    }

    let runs: [ByteClassRun]
    let strategy: Strategy

    init(_ runs: [ByteClassRun]) {
        self.runs = runs
        strategy = Self.greedyIsExact(runs) ? .greedy : .positions
    }

    /// Whether the greedy pass finds every match: for each run of varying count, no byte of its
    /// set is in the set of a run that can follow it directly (the next run, and the ones after
    /// it while those before them may repeat zero times). Then a match cannot leave a byte of the
    /// run's set to a later run, so the run takes exactly the bytes of its set it finds, up to its
    /// maximum. A run of fixed count has no choice to make, so a pattern of fixed counts only is
    /// always such a pattern. `[a-z]+_[0-9]{1,8}` is one; `[ab]*b` is not.
    static func greedyIsExact(_ runs: [ByteClassRun]) -> Bool {
        for (index, run) in runs.enumerated() where run.minimum != run.maximum {
            for next in runs[(index + 1)...] {
                if next.low & run.low != 0 || next.high & run.high != 0 { return false }
                if next.minimum > 0 { break }
            }
        }
        return true
    }

    /// Whether the runs match all of `bytes` (ASCII).
    func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        switch strategy {
        case .greedy: Self.matchesGreedily(runs, bytes)
        case .positions: Self.matchesByPositions(runs, bytes)
        }
    }

    /// Each run takes as many bytes of its set as it finds, up to its maximum, and must find its
    /// minimum. Exact for the patterns ``greedyIsExact(_:)`` accepts.
    static func matchesGreedily(_ runs: [ByteClassRun], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var position = 0
        for run in runs {
            let start = position
            let limit = bytes.count - start < run.maximum ? bytes.count : start + run.maximum
            while position < limit, run.contains(bytes[position]) { position += 1 }
            guard position - start >= run.minimum else { return false }
        }
        return position == bytes.count
    }

    /// Keeps the set of positions each prefix of the runs can end at, so it takes time linear in
    /// the text per run, with no backtracking; its three tables are one temporary allocation (on
    /// the stack for a text of a few hundred bytes).
    static func matchesByPositions(_ runs: [ByteClassRun], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 &* (count &+ 2)) { tables in
            // reachable[p] (0 or 1): whether the runs so far can end at p; streak[p]: how many bytes
            // from p on are in the run's set; marks: where ranges of reachable positions open and close.
            let reachable = UnsafeMutableBufferPointer(rebasing: tables[0..<(count + 1)])
            let streak = UnsafeMutableBufferPointer(rebasing: tables[(count + 1)..<(2 * count + 2)])
            let marks = UnsafeMutableBufferPointer(rebasing: tables[(2 * count + 2)..<(3 * count + 4)])
            reachable.initialize(repeating: 0)
            reachable[0] = 1
            streak.initialize(repeating: 0)
            marks.initialize(repeating: 0)
            for run in runs {
                streak[count] = 0
                for position in stride(from: count - 1, through: 0, by: -1) {
                    streak[position] = run.contains(bytes[position]) ? streak[position + 1] + 1 : 0
                }
                for index in marks.indices { marks[index] = 0 }
                var any = false
                for position in 0...count where reachable[position] != 0 && streak[position] >= run.minimum {
                    let last = position + min(run.maximum, streak[position])
                    marks[position + run.minimum] += 1
                    marks[last + 1] -= 1
                    any = true
                }
                guard any else { return false }
                var open = 0
                for position in 0...count {
                    open += marks[position]
                    reachable[position] = open > 0 ? 1 : 0
                }
            }
            return reachable[count] != 0
        }
    }
}

/// One step of a simple pattern: a set of ASCII bytes, repeated between `minimum` and `maximum`
/// times.
struct ByteClassRun: Sendable, Equatable {
    /// Bit `b` of `low` (b < 64) or of `high` (b ≥ 64) is set when byte `b` is in the set.
    var low: UInt64 = 0
    var high: UInt64 = 0
    var minimum = 1
    var maximum = 1

    func contains(_ byte: UInt8) -> Bool {
        byte < 64 ? low & 1 << UInt64(byte) != 0 : byte < 128 && high & 1 << UInt64(byte - 64) != 0
    }

    mutating func insert(_ byte: UInt8) {
        if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
    }

    /// The runs of a pattern made only of ASCII characters, escaped punctuation, `\d`, `\w` and
    /// bracket classes of characters and ranges, each optionally followed by `?`, `*`, `+`,
    /// `{n}`, `{n,}` or `{n,m}`; `nil` for anything else (groups, alternation, anchors, `.`,
    /// negated classes, lazy counts), which the regular-expression engine handles.
    static func compile(_ source: String) -> [ByteClassRun]? {
        let bytes = Array(source.utf8)
        guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        var runs: [ByteClassRun] = []
        var position = 0
        while position < bytes.count {
            guard var run = atom(bytes, &position) else { return nil }
            guard quantifier(bytes, &position, into: &run) else { return nil }
            runs.append(run)
        }
        return runs
    }

    private static func isPunctuation(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte) && !(0x30...0x39).contains(byte) && !(0x41...0x5A).contains(byte) && !(0x61...0x7A).contains(byte)
    }

    private static func atom(_ bytes: [UInt8], _ position: inout Int) -> ByteClassRun? {
        var run = ByteClassRun()
        let byte = bytes[position]
        position += 1
        switch byte {
        case UInt8(ascii: "\\"):
            guard position < bytes.count else { return nil }
            let escaped = bytes[position]
            position += 1
            switch escaped {
            case UInt8(ascii: "d"): for digit in UInt8(ascii: "0")...UInt8(ascii: "9") { run.insert(digit) }
            case UInt8(ascii: "w"): run = wordClass()
            default:
                guard isPunctuation(escaped) else { return nil }
                run.insert(escaped)
            }
        case UInt8(ascii: "["):
            return bracket(bytes, &position)
        case UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "$"), UInt8(ascii: "|"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "#"):
            return nil
        default:
            guard (0x20...0x7E).contains(byte) else { return nil }
            run.insert(byte)
        }
        return run
    }

    private static func wordClass() -> ByteClassRun {
        var run = ByteClassRun()
        for byte in UInt8(ascii: "0")...UInt8(ascii: "9") { run.insert(byte) }
        for byte in UInt8(ascii: "a")...UInt8(ascii: "z") { run.insert(byte) }
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") { run.insert(byte) }
        run.insert(UInt8(ascii: "_"))
        return run
    }

    /// A bracket class after its `[`: characters, escaped punctuation and ranges up to `]`.
    private static func bracket(_ bytes: [UInt8], _ position: inout Int) -> ByteClassRun? {
        var run = ByteClassRun()
        var first = true
        let start = position
        while position < bytes.count {
            var byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "]"), !first { return run }
            first = false
            switch byte {
            case UInt8(ascii: "^"), UInt8(ascii: "["), UInt8(ascii: "&"), UInt8(ascii: "]"): return nil
            // ICU reads `--` in a class as set difference, so a class with one is the engine's.
            case UInt8(ascii: "-") where position < bytes.count && bytes[position] == UInt8(ascii: "-"): return nil
            case UInt8(ascii: "-") where position < bytes.count && bytes[position] != UInt8(ascii: "]") && position - 1 > start: return nil
            case UInt8(ascii: "\\"):
                guard position < bytes.count, isPunctuation(bytes[position]) else { return nil }
                byte = bytes[position]
                position += 1
            default:
                guard (0x20...0x7E).contains(byte) else { return nil }
            }
            if position + 1 < bytes.count, bytes[position] == UInt8(ascii: "-"), bytes[position + 1] != UInt8(ascii: "]") {
                let upper = bytes[position + 1]
                guard upper != UInt8(ascii: "\\"), upper != UInt8(ascii: "["), upper != UInt8(ascii: "-"), (0x20...0x7E).contains(upper),
                    upper >= byte
                else {
                    return nil
                }
                position += 2
                for member in byte...upper { run.insert(member) }
            } else {
                run.insert(byte)
            }
        }
        return nil
    }

    /// Reads a count after an atom, if there is one; `false` for one this matcher does not take.
    private static func quantifier(_ bytes: [UInt8], _ position: inout Int, into run: inout ByteClassRun) -> Bool {
        guard position < bytes.count else { return true }
        switch bytes[position] {
        case UInt8(ascii: "?"): (run.minimum, run.maximum) = (0, 1)
        case UInt8(ascii: "*"): (run.minimum, run.maximum) = (0, Int.max / 2)
        case UInt8(ascii: "+"): (run.minimum, run.maximum) = (1, Int.max / 2)
        case UInt8(ascii: "{"):
            guard let close = bytes[position...].firstIndex(of: UInt8(ascii: "}")) else { return false }
            let parts = bytes[(position + 1)..<close].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            guard let low = count(parts[0]) else { return false }
            switch parts.count {
            case 1: (run.minimum, run.maximum) = (low, low)
            case 2 where parts[1].isEmpty: (run.minimum, run.maximum) = (low, Int.max / 2)
            case 2:
                guard let high = count(parts[1]), high >= low else { return false }
                (run.minimum, run.maximum) = (low, high)
            default: return false
            }
            position = close
        default: return true
        }
        position += 1
        // A lazy or possessive count after it changes nothing for a whole-string match, but keep
        // such patterns on the engine.
        if position < bytes.count, bytes[position] == UInt8(ascii: "?") || bytes[position] == UInt8(ascii: "+") { return false }
        return true
    }

    /// A count in braces: one to four ASCII digits, at most 1,000. A sign, a space or anything else
    /// is the engine's to judge (`Int` alone would take `+0` and `-1`, which the engine refuses).
    private static func count(_ digits: ArraySlice<UInt8>) -> Int? {
        guard (1...4).contains(digits.count), digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return value <= 1_000 ? value : nil
    }
}
