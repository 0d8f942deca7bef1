import Foundation

/// The value formats a spec can require, and their checks.
public enum ValueFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// Any RFC 4122 UUID in its 36-character text form.
    case uuid
    /// A version-4 (random) UUID in its 36-character text form, any letter case.
    case uuidv4
    /// Base64 with the standard alphabet (RFC 4648 §4); `=` padding optional, ASCII white space ignored.
    case base64
    /// An ISO-8601 / RFC 3339 date-time string such as `2024-01-08T00:00:00Z`.
    case iso8601
    /// An integer count of milliseconds since the Unix epoch.
    case epochMillis
    /// An absolute URI.
    case uri

    /// Whether the format applies to strings (`true`) or integers (`false`).
    public var appliesToStrings: Bool { self != .epochMillis }

    /// Human words for messages: "a UUID", "base64", ...
    public var expectation: String {
        switch self {
        case .uuid: return "a UUID"
        case .uuidv4: return "a version 4 UUID"
        case .base64: return "base64 (standard alphabet; padding optional, white space ignored)"
        case .iso8601: return "an ISO-8601 date-time such as 2024-01-08T10:00:00Z"
        case .epochMillis: return "milliseconds since the Unix epoch"
        case .uri: return "an absolute URI"
        }
    }
}

/// The checks behind the formats and byte-size rules, usable on their own.
public enum WireFormats {
    /// Whether text is a UUID in its 36-character form (any letter case).
    public static func isUUID(_ text: String) -> Bool {
        text.utf8.count == 36 && withUTF8(text) { isUUID($0) }
    }

    /// Whether UTF-8 bytes are a UUID in its 36-character form (any letter case).
    public static func isUUID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36, let base = bytes.baseAddress else { return false }
        let dash = UInt8(ascii: "-")
        guard base[8] == dash, base[13] == dash, base[18] == dash, base[23] == dash else { return false }
        // The four dashes are the only bytes that are not hex digits.
        let nonHex = nonHexTable
        var nonHexCount = 0
        for index in 0..<36 { nonHexCount &+= Int(nonHex[Int(base[index])]) }
        return nonHexCount == 4
    }

    /// Whether UTF-8 bytes are a version 4, RFC 4122 variant UUID (any letter case).
    public static func isUUIDv4(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard isUUID(bytes) else { return false }
        let variant = bytes[19] | 0x20
        return bytes[14] == UInt8(ascii: "4")
            && (variant == UInt8(ascii: "8") || variant == UInt8(ascii: "9") || variant == UInt8(ascii: "a") || variant == UInt8(ascii: "b"))
    }

    /// The number of Unicode scalars in well-formed UTF-8.
    public static func scalarCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        for byte in bytes where byte & 0xC0 != 0x80 { count += 1 }
        return count
    }

    /// Whether well-formed UTF-8 starts with a prefix's bytes.
    public static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: String) -> Bool {
        let count = prefix.utf8.count
        guard count <= bytes.count else { return false }
        let equal = prefix.utf8.withContiguousStorageIfAvailable { JSONTape.equalBytes(UnsafeBufferPointer(rebasing: bytes[0..<count]), $0) }
        if let equal { return equal }
        return UnsafeBufferPointer(rebasing: bytes[0..<count]).elementsEqual(prefix.utf8)
    }

    /// Whether text is empty or all white space (Unicode's White_Space property). ASCII is judged
    /// from the bytes; `text` is built only for non-ASCII text without other evidence.
    public static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>, text: () -> String) -> Bool {
        var sawNonASCII = false
        for byte in bytes {
            if byte >= 0x80 {
                sawNonASCII = true
            } else if !(byte == 0x20 || (0x09...0x0D).contains(byte)) {
                return false
            }
        }
        return !sawNonASCII || text().unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }

    /// Calls `body` with the text's UTF-8 bytes, without copying native strings.
    @inline(__always)
    static func withUTF8<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }

    /// Whether text is a version 4, RFC 4122 variant UUID (any letter case).
    public static func isUUIDv4(_ text: String) -> Bool {
        text.utf8.count == 36 && withUTF8(text) { isUUIDv4($0) }
    }

    /// The number of bytes base64 text decodes to, or `nil` when it is not base64 (see ``ValueFormat/base64``).
    public static func decodedBase64Length(_ text: String) -> Int? {
        withUTF8(text) { decodedBase64Length(bytes: $0) }
    }

    /// The number of bytes base64 (as UTF-8 bytes) decodes to, or `nil` when it is not base64:
    /// the standard alphabet, `=` padding optional (but complete when present), ASCII white space
    /// ignored anywhere. Text of white space alone is not base64 (only the empty string encodes
    /// no bytes), so it cannot pass for data that must not be empty.
    public static func decodedBase64Length(bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        scanBase64(bytes) { _ in }
    }

    /// Hands each byte base64 text decodes to to `body`, in order, without building an array;
    /// returns the number of bytes, or `nil` (before calling `body`) when the text is not base64
    /// (the same rules as ``decodedBase64Length(bytes:)``). Used where values compare by their
    /// decoded bytes.
    @discardableResult
    public static func decodeBase64(bytes: UnsafeBufferPointer<UInt8>, into body: (UInt8) -> Void) -> Int? {
        guard decodedBase64Length(bytes: bytes) != nil else { return nil }
        return scanBase64(bytes, body)
    }

    /// Whether text is an ISO-8601 / RFC 3339 date-time: `YYYY-MM-DDThh:mm:ss[.fraction](Z|±hh:mm)`.
    public static func isISO8601DateTime(_ text: String) -> Bool {
        parseISO8601(text) != nil
    }

    /// Parses an ISO-8601 / RFC 3339 date-time into a `Date`.
    public static func parseISO8601(_ text: String) -> Date? {
        let b = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= b.count else { return nil }
            var value = 0
            for index in range {
                guard b[index] >= 0x30, b[index] <= 0x39 else { return nil }
                value = value * 10 + Int(b[index] - 0x30)
            }
            return value
        }
        guard b.count >= 20, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if b[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < b.count, b[index] >= 0x30, b[index] <= 0x39 {
                fraction += Double(b[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < b.count else { return nil }
        var offsetSeconds = 0
        if b[index] == UInt8(ascii: "Z") || b[index] == UInt8(ascii: "z") {
            index += 1
        } else if b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-") {
            guard index + 6 == b.count, b[index + 3] == UInt8(ascii: ":"),
                let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6), hours < 24, minutes < 60
            else { return nil }
            offsetSeconds = (hours * 3600 + minutes * 60) * (b[index] == UInt8(ascii: "-") ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        var components = DateComponents()
        components.calendar = Calendar(identifier: .gregorian)
        components.timeZone = TimeZone(secondsFromGMT: 0)
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, min(second, 59))
        guard components.isValidDate, let date = components.date else { return nil }
        return date.addingTimeInterval(fraction - Double(offsetSeconds))
    }

    /// The canonical ISO-8601 text of a date: UTC, `Z`, milliseconds only when not zero.
    public static func formatISO8601(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        let seconds = date.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        let millis = Int(((seconds - whole) * 1000).rounded())
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: whole))
        var text = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0,
            parts.second ?? 0)
        if millis > 0 { text += String(format: ".%03d", min(millis, 999)) }
        return text + "Z"
    }

    /// Whether text is an absolute URI: a scheme, a colon, and no white space or control characters.
    public static func isAbsoluteURI(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return false }
        let scheme = text[..<colon].unicodeScalars
        guard let first = scheme.first, first.isASCII, first.properties.isAlphabetic,
            scheme.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "+-.".unicodeScalars.contains($0)) })
        else { return false }
        return !text.unicodeScalars.contains { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }
    }

    /// Whether an integer is a plausible epoch-milliseconds timestamp (years 1970 to 9999).
    public static func isEpochMillis(_ value: Int) -> Bool {
        (0...253_402_300_799_999).contains(value)
    }
}
