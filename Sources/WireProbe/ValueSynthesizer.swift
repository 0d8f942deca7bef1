import Foundation
import WireRuntime
import WireSpec

/// A small seeded generator (SplitMix64): the same seed gives the same frames on every machine.
public struct ProbeRandom: Sendable {
    private var state: UInt64

    /// A generator started from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) &+ 1
        return range.lowerBound + Int(width == 0 ? next() : next() % width)
    }

    /// `true` with probability `percent` / 100.
    mutating func chance(_ percent: Int) -> Bool { int(in: 0...99) < percent }

    /// A random version-4 UUID in its text form.
    mutating func uuid() -> String {
        var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: next()) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)])
        }
        return parts.joined(separator: "-")
    }
}

/// Builds valid values of a spec's types: the positive cases' frames, and the items a negative
/// case needs around the one value it breaks.
struct ValueSynthesizer {
    let spec: ProtocolSpec
    var random: ProbeRandom
    /// Whether values sit at their limits now and then (the longest string, the most items).
    var boundaries = true

    /// A valid value of `type`, or `nil` when the probe cannot make one (a pattern it cannot invert).
    mutating func value(_ type: ResolvedType, depth: Int = 0) -> JSONValue? {
        let limits = type.constraints
        if let constant = limits.const { return JSONValue(spec: constant) }
        switch type.shape {
        case .string: return string(limits).map(JSONValue.string)
        case .integer:
            let low = Int(limits.minimum ?? 0)
            let high = Int(limits.maximum ?? Double(low + 1000))
            if limits.format == .epochMillis { return .integer(1_767_225_600_000 + random.int(in: 0...86_400_000)) }
            return .integer(random.int(in: low...max(low, high)))
        case .number:
            let low = limits.minimum ?? 0
            let high = limits.maximum ?? low + 1000
            return JSONValue(low + (high - low) * Double(random.int(in: 0...1000)) / 1000)
        case .boolean: return .bool(random.chance(50))
        case .json: return .object(["probe": .integer(random.int(in: 0...9))])
        case .array(let element):
            let items = itemCount(limits)
            var values: [JSONValue] = []
            for _ in 0..<items {
                guard let item = value(ResolvedType(element, in: spec), depth: depth + 1) else { return nil }
                values.append(item)
            }
            return .array(values)
        case .map(let key, let element):
            let count = itemCount(limits)
            var members: [String: JSONValue] = [:]
            // Keys of a small type (an enum of two values) repeat: a few more tries, then as many as there are.
            for index in 0..<count * 4 where members.count < count {
                guard let name = mapKey(key, index: index, depth: depth) else { return nil }
                guard members[name] == nil else { continue }
                guard let item = value(ResolvedType(element, in: spec), depth: depth + 1) else { return nil }
                members[name] = item
            }
            if members.count < (limits.minItems ?? 0) { return nil }
            return .object(members)
        case .object(let object): return self.object(object, depth: depth).map(JSONValue.object)
        case .enumeration(let values):
            guard !values.values.isEmpty else { return nil }
            return .string(values.values[random.int(in: 0...values.values.count - 1)].value)
        case .union(let union):
            guard !union.cases.isEmpty else { return nil }
            let chosen = union.cases[random.int(in: 0...union.cases.count - 1)]
            guard case .object(let shape)? = spec.type(named: chosen.type)?.kind, var members = object(shape, depth: depth) else { return nil }
            members[union.tag] = JSONValue(spec: chosen.tagValue)
            return .object(members)
        case .oneOf(let oneOf):
            for variant in oneOf.variants {
                if let made = value(ResolvedType(variant.type, constraints: variant.constraints, in: spec), depth: depth + 1) { return made }
            }
            return nil
        }
    }

    /// The members of a valid object: every required field, each optional one half the time.
    mutating func object(_ shape: ObjectShape, depth: Int) -> [String: JSONValue]? {
        var members: [String: JSONValue] = [:]
        for field in shape.fields {
            if !field.required, depth > 2 || random.chance(50) { continue }
            if field.nullable, random.chance(10) {
                members[field.name] = .null
                continue
            }
            guard let made = value(ResolvedType(field.type, constraints: field.constraints, in: spec), depth: depth + 1) else {
                if field.required { return nil }
                continue
            }
            members[field.name] = made
        }
        return members
    }

    /// A valid key of a map keyed by `key`: made like any value of a typed key's type, and a
    /// plain name (`key0`, `key1`…) for any other.
    mutating func mapKey(_ key: TypeRef, index: Int, depth: Int = 0) -> String? {
        if key == .string { return "key\(index)" }
        guard case .string(let name)? = value(ResolvedType(key, in: spec), depth: depth + 1) else { return nil }
        return name
    }

    private mutating func itemCount(_ limits: Constraints) -> Int {
        let low = limits.minItems ?? 0
        let high = max(low, min(limits.maxItems ?? 3, 3))
        if boundaries, let most = limits.maxItems, random.chance(10) { return most }
        return random.int(in: low...high)
    }

    /// A valid string under `limits`, or `nil`.
    mutating func string(_ limits: Constraints) -> String? {
        switch limits.format {
        case .uuid?, .uuidv4?: return random.uuid()
        case .iso8601?: return "2026-01-08T10:\(String(format: "%02d", random.int(in: 0...59))):00Z"
        case .uri?: return "https://example.com/probe/\(random.int(in: 0...9999))"
        case .base64?:
            let most = min(limits.maxDecodedBytes ?? 48, 48)
            let count = max(1, random.int(in: 1...max(1, most)))
            let bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            return Data(bytes).base64EncodedString()
        default: break
        }
        if let pattern = limits.pattern {
            // The pattern's strings, until one is also within the lengths and the prefix.
            for _ in 0..<32 {
                var generator = PatternGenerator(pattern: pattern)
                guard let made = generator.generate(&random) else { return nil }
                if Self.meets(limits, made) { return made }
            }
            return nil
        }
        let prefix = limits.prefix ?? ""
        let fewest = max(limits.minLength ?? 0, limits.minBytes ?? 0, limits.notBlank ? 1 : 0, prefix.count)
        var most = min(limits.maxLength ?? Int.max, limits.maxBytes ?? Int.max)
        if most < fewest { return nil }
        let atLimit = boundaries && most != Int.max && random.chance(10)
        most = min(most, fewest + 24)
        let length =
            atLimit ? min(limits.maxLength ?? Int.max, limits.maxBytes ?? Int.max) : random.int(in: max(fewest, 1)...max(fewest, max(most, 1)))
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ")
        var text = prefix
        // Counted as it grows: `String.count` walks the whole text, which made a text at a
        // limit of many thousand characters cost the square of its length.
        var count = prefix.count
        while count < length {
            let character = alphabet[random.int(in: 0...alphabet.count - 1)]
            text.append(count == 0 && character == " " ? "a" : character)
            count += 1
        }
        return text
    }
}

extension ValueSynthesizer {
    /// Whether `text` is within the lengths, the byte counts, the prefix and the blankness of `limits`.
    static func meets(_ limits: Constraints, _ text: String) -> Bool {
        let characters = text.count
        let bytes = text.utf8.count
        return characters >= (limits.minLength ?? 0) && characters <= (limits.maxLength ?? .max) && bytes >= (limits.minBytes ?? 0)
            && bytes <= (limits.maxBytes ?? .max) && text.hasPrefix(limits.prefix ?? "")
            && !(limits.notBlank && text.allSatisfy(\.isWhitespace))
    }
}

/// Makes strings that match a simple regular expression: literals, escapes, classes (`[a-f0-9]`),
/// `.`, and the quantifiers `?`, `*`, `+`, `{n}` and `{n,m}`. Anything else (groups, alternation)
/// is beyond it, and it returns `nil`.
struct PatternGenerator {
    let pattern: [Character]
    var position = 0

    init(pattern: String) { self.pattern = Array(pattern) }

    mutating func generate(_ random: inout ProbeRandom) -> String? {
        var result = ""
        while position < pattern.count {
            guard let choices = atom() else { return nil }
            let (low, high) = quantifier()
            for _ in 0..<random.int(in: low...high) where !choices.isEmpty {
                result.append(choices[random.int(in: 0...choices.count - 1)])
            }
        }
        return result
    }

    private mutating func atom() -> [Character]? {
        let character = pattern[position]
        position += 1
        switch character {
        case "(", ")", "|", "^", "$": return nil
        case ".": return Array("abcxyz019")
        case "\\":
            guard position < pattern.count else { return nil }
            let escaped = pattern[position]
            position += 1
            switch escaped {
            case "d": return Array("0123456789")
            case "w": return Array("abcXYZ019_")
            case "s": return [" "]
            default: return [escaped]
            }
        case "[":
            var members: [Character] = []
            while position < pattern.count, pattern[position] != "]" {
                let first = pattern[position]
                if first == "^" { return nil }
                if position + 2 < pattern.count, pattern[position + 1] == "-", pattern[position + 2] != "]" {
                    let last = pattern[position + 2]
                    guard let low = first.unicodeScalars.first?.value, let high = last.unicodeScalars.first?.value, low <= high else { return nil }
                    members += (low...high).compactMap { Unicode.Scalar($0).map(Character.init) }
                    position += 3
                } else {
                    members.append(first)
                    position += 1
                }
            }
            position += 1
            return members
        default: return [character]
        }
    }

    private mutating func quantifier() -> (Int, Int) {
        guard position < pattern.count else { return (1, 1) }
        switch pattern[position] {
        case "?":
            position += 1
            return (0, 1)
        case "*":
            position += 1
            return (0, 3)
        case "+":
            position += 1
            return (1, 3)
        case "{":
            guard let close = pattern[position...].firstIndex(of: "}") else { return (1, 1) }
            let body = String(pattern[(position + 1)..<close])
            position = close + 1
            let parts = body.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
            let low = parts.first.flatMap { $0 } ?? 0
            let high = parts.count > 1 ? (parts[1] ?? low + 3) : low
            return (low, max(low, high))
        default: return (1, 1)
        }
    }
}
