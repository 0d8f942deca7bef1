import WireRuntime
import WireSpec

/// A JSONL line laid out exactly as Clawline's capture writers write it:
///
/// ```
/// {"session":"<plain text>","dir":"client"|"server","ts":<digits>,"frame":{…}}
/// ```
///
/// with no whitespace, the session plain ASCII (no escapes) and the timestamp an integer of at
/// most 18 digits. Such a line is read from its bytes: the envelope's keys and values are matched
/// where they must be, and only the frame is scanned into a tape. That is the line a reader meets
/// almost every time, and it skips the envelope's tokens, its walk and its key comparisons.
///
/// Matching is all or nothing. A line laid out any other way, or whose frame does not parse as
/// the value between `"frame":` and the last byte, is read by the general path, which reports
/// whatever is wrong with it. So a line gives the same frame or problem either way.
struct CanonicalEnvelope {
    /// Where the session's text is in the line (between its quotes).
    var session: Range<Int>
    var direction: Direction
    /// The timestamp, epoch milliseconds.
    var timestamp: Double
    /// Where the frame's value is in the line: from its `{` to the byte before the line's last,
    /// which closes the envelope. The caller scans it; only then is the line known to match.
    var frame: Range<Int>

    /// The envelope of `line` when the line is laid out as above up to its frame, else `nil`.
    init?(_ line: UnsafeBufferPointer<UInt8>) {
        var cursor = 0
        guard Self.match(#"{"session":""#, in: line, at: &cursor),
            let sessionEnd = JSONTape.endOfPlainString(in: line, from: cursor)
        else { return nil }
        session = cursor..<sessionEnd
        cursor = sessionEnd
        guard Self.match(#"","dir":""#, in: line, at: &cursor) else { return nil }
        if Self.match("client", in: line, at: &cursor) {
            direction = .client
        } else if Self.match("server", in: line, at: &cursor) {
            direction = .server
        } else {
            return nil
        }
        guard Self.match(#"","ts":"#, in: line, at: &cursor), let milliseconds = Self.integer(in: line, at: &cursor) else { return nil }
        timestamp = Double(milliseconds)
        // The frame must be an object (a frame given as text, or anything else, is the general
        // path's), and the line must end with the envelope's brace right after it.
        guard Self.match(#","frame":{"#, in: line, at: &cursor), line.count - 1 > cursor,
            line[line.count - 1] == UInt8(ascii: "}")
        else { return nil }
        frame = (cursor - 1)..<(line.count - 1)
    }

    /// Whether the bytes at `cursor` are `literal`'s; moves the cursor past them when they are.
    @inline(__always)
    private static func match(_ literal: StaticString, in line: UnsafeBufferPointer<UInt8>, at cursor: inout Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard line.count - cursor >= count else { return false }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        guard JSONTape.equalBytes(UnsafeBufferPointer(rebasing: line[cursor..<(cursor &+ count)]), expected) else { return false }
        cursor &+= count
        return true
    }

    /// A non-negative integer of 1 to 18 digits at `cursor` (``JSONTape/plainInteger(in:from:)``);
    /// moves the cursor past it.
    @inline(__always)
    private static func integer(in line: UnsafeBufferPointer<UInt8>, at cursor: inout Int) -> Int? {
        guard let (value, end) = JSONTape.plainInteger(in: line, from: cursor) else { return nil }
        cursor = end
        return value
    }
}
