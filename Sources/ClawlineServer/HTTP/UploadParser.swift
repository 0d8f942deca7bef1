import NIOCore

// This file is self-contained (NIOCore only): the fuzz target `FuzzUploadParser` compiles it as
// it is, through a symbolic link.

/// Why an upload's `Content-Type` or body was refused, before or while it was parsed.
enum UploadRejection: Error, Sendable {
    /// The `Content-Type` is not `multipart/form-data` with a valid boundary (RFC 2046).
    case notMultipart(String)
    /// The body breaks the multipart syntax, or its part is not the one `file` part.
    case malformed(String)
    /// The request, the file or a part's headers are larger than allowed.
    case tooLarge(String)
    /// What stores the file's bytes failed, or refused them (a quota).
    case receiver(any Error)

    /// What was wrong, for the error body.
    var message: String {
        switch self {
        case .notMultipart(let message), .malformed(let message), .tooLarge(let message): message
        case .receiver(let error): "the file could not be stored: \(error)"
        }
    }
}

/// The limits an upload's body is parsed within.
struct UploadLimits: Sendable, Hashable {
    /// The largest file (the spec's `maxUploadBytes`).
    var maxFileBytes: Int
    /// The most bytes of the preamble and of one part's headers, kept in memory while they are read.
    var maxHeaderBytes = 16 * 1024
    /// What the whole body may carry beyond the file: boundaries, headers, an epilogue.
    var maxFramingBytes = 64 * 1024

    /// The largest body, file and framing together.
    var maxBodyBytes: Int { maxFileBytes + maxFramingBytes }
}

/// Reads a `multipart/form-data` upload (RFC 2046, section 5.1.1) as it streams in: checks the
/// boundary, caps the body, the file and each part's headers, and hands the bytes of the one
/// part named `file` to `onFileBytes`, without holding them. Any bytes are refused with an
/// ``UploadRejection``, never a trap. Used by one request's task only.
final class UploadParser {
    private enum State {
        /// Before the first boundary: everything is skipped.
        case preamble
        /// Right after a delimiter: `--` closes the body, else optional spaces and CRLF open a part.
        case afterDelimiter(dashes: Int, sawCR: Bool)
        /// A part's header lines; `line` is the one being read.
        case headers(line: [UInt8], sawCR: Bool)
        /// A part's body, up to the next delimiter.
        case body
        /// After the closing delimiter: everything is ignored.
        case epilogue
    }

    private let limits: UploadLimits
    private let onFileBytes: (ByteBuffer) throws -> Void
    /// `CRLF--boundary`, which ends a part's body (and, as if a CRLF came first, the preamble).
    private let delimiter: [UInt8]
    /// Knuth–Morris–Pratt: for each prefix of the delimiter, the longest proper prefix that is
    /// also its suffix.
    private let fallback: [Int]
    private var state = State.preamble
    /// How many bytes of the delimiter the latest bytes match.
    private var matched = 2
    /// The framing bytes read since the last part's body (the preamble, a delimiter's line, headers).
    private var framingBytes = 0
    private var partName: String?
    private var partType: String?
    private var failure: UploadRejection?

    /// The bytes of the body fed so far.
    private(set) var bodyBytes = 0
    /// The file's bytes so far.
    private(set) var fileBytes = 0
    /// The file part's `Content-Type`, once the part is complete.
    private(set) var mimeType: String?
    /// Whether the file part is complete.
    private(set) var fileComplete = false

    /// A parser for a request with `contentType`; `onFileBytes` stores the file's bytes (and may
    /// throw to stop the upload).
    init(contentType: String?, limits: UploadLimits, onFileBytes: @escaping (ByteBuffer) throws -> Void) throws(UploadRejection) {
        guard let contentType else { throw .notMultipart("the body must be multipart/form-data with a boundary") }
        let boundary = try MultipartBoundary.parse(contentType: contentType)
        self.limits = limits
        self.onFileBytes = onFileBytes
        delimiter = Array("\r\n--\(boundary)".utf8)
        var fallback = Array(repeating: 0, count: delimiter.count)
        var length = 0
        for index in 1..<delimiter.count {
            while length > 0, delimiter[index] != delimiter[length] { length = fallback[length - 1] }
            if delimiter[index] == delimiter[length] { length += 1 }
            fallback[index] = length
        }
        self.fallback = fallback
    }

    /// Parses the next chunk of the body.
    func feed(_ chunk: ByteBuffer) throws(UploadRejection) {
        if let failure { throw failure }
        bodyBytes += chunk.readableBytes
        guard bodyBytes <= limits.maxBodyBytes else {
            throw stop(.tooLarge("an upload's body is at most \(limits.maxBodyBytes) bytes (a file of \(limits.maxFileBytes) and its framing)"))
        }
        let bytes = chunk.readableBytesView
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if case .body = state {
                index = try readBody(bytes, from: index)
            } else {
                try read(bytes[index])
                index = bytes.index(after: index)
            }
            if let failure { throw failure }
        }
    }

    /// Checks the body is complete: one part named `file`, then the closing delimiter.
    func finish() throws(UploadRejection) {
        if let failure { throw failure }
        guard case .epilogue = state else { throw stop(.malformed("the multipart body ends before its closing boundary")) }
        guard fileComplete else { throw stop(.malformed("the upload has no part named 'file'")) }
    }

    @discardableResult
    private func stop(_ rejection: UploadRejection) -> UploadRejection {
        if failure == nil { failure = rejection }
        return failure ?? rejection
    }

    // MARK: Framing, a byte at a time

    /// Reads one byte of framing: the preamble, a delimiter's line, headers or the epilogue.
    private func read(_ byte: UInt8) throws(UploadRejection) {
        if case .epilogue = state { return }
        framingBytes += 1
        guard framingBytes <= limits.maxHeaderBytes else {
            throw stop(.tooLarge("a part's headers (and the preamble before them) are at most \(limits.maxHeaderBytes) bytes"))
        }
        switch state {
        case .preamble:
            if advanceMatch(with: byte) == delimiter.count { enterAfterDelimiter() }
        case .afterDelimiter(let dashes, let sawCR):
            try readAfterDelimiter(byte, dashes: dashes, sawCR: sawCR)
        case .headers(var line, let sawCR):
            if sawCR {
                guard byte == 10 else { throw stop(.malformed("a part's header line must end with CRLF")) }
                try endHeaderLine(line)
            } else if byte == 13 {
                state = .headers(line: line, sawCR: true)
            } else {
                line.append(byte)
                state = .headers(line: line, sawCR: false)
            }
        case .body, .epilogue:
            break
        }
    }

    private func readAfterDelimiter(_ byte: UInt8, dashes: Int, sawCR: Bool) throws(UploadRejection) {
        switch (byte, dashes, sawCR) {
        case (45, 0, false), (45, 1, false):  // "--": the closing delimiter
            if dashes == 1 {
                state = .epilogue
            } else {
                state = .afterDelimiter(dashes: 1, sawCR: false)
            }
        case (32, 0, false), (9, 0, false):  // transport padding
            break
        case (13, 0, false):
            state = .afterDelimiter(dashes: 0, sawCR: true)
        case (10, 0, true):
            state = .headers(line: [], sawCR: false)
        default:
            throw stop(.malformed("a boundary line must end with CRLF, or with -- after the last part"))
        }
    }

    private func enterAfterDelimiter() {
        state = .afterDelimiter(dashes: 0, sawCR: false)
        matched = 0
    }

    /// Ends a header line: an empty one opens the part's body; others are `name: value`.
    private func endHeaderLine(_ line: [UInt8]) throws(UploadRejection) {
        guard !line.isEmpty else {
            state = .body
            matched = 0
            framingBytes = 0
            return
        }
        guard let colon = line.firstIndex(of: 58), colon > 0, line[..<colon].allSatisfy(Self.isTokenByte) else {
            throw stop(.malformed("a part's header line is not 'Name: value'"))
        }
        let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
        let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces
        switch name {
        case "content-disposition": partName = Self.parameter("name", in: value)
        case "content-type": partType = value
        default: break
        }
        state = .headers(line: [], sawCR: false)
    }

    // MARK: A part's body, in runs

    /// Reads body bytes from `start`: runs without a carriage return go out whole; the rest is
    /// matched against the delimiter. Returns where it stopped (the end, or after a delimiter).
    private func readBody(_ bytes: ByteBufferView, from start: ByteBufferView.Index) throws(UploadRejection) -> ByteBufferView.Index {
        var index = start
        while index < bytes.endIndex {
            if matched == 0 {
                let run = bytes[index...].firstIndex(of: 13) ?? bytes.endIndex
                if run > index {
                    try deliver(ByteBuffer(bytes[index..<run]))
                    index = run
                    continue
                }
            }
            let before = matched
            let after = advanceMatch(with: bytes[index])
            index = bytes.index(after: index)
            if after == delimiter.count {
                try partComplete()
                enterAfterDelimiter()
                return index
            }
            // Of the bytes held (the delimiter's first `before` bytes and this one), those no
            // longer part of a match are the body's.
            let released = before + 1 - after
            if released > 0 {
                var held = ByteBuffer(bytes: delimiter[0..<min(released, before)])
                if released > before { held.writeInteger(bytes[bytes.index(before: index)]) }
                try deliver(held)
            }
        }
        return index
    }

    /// Moves the delimiter match on by `byte`; returns how many bytes now match.
    private func advanceMatch(with byte: UInt8) -> Int {
        while matched > 0, delimiter[matched] != byte { matched = fallback[matched - 1] }
        if delimiter[matched] == byte { matched += 1 }
        return matched
    }

    /// Hands body bytes of the current part on: to the file, or refuses a part that is not it.
    private func deliver(_ buffer: ByteBuffer) throws(UploadRejection) {
        guard buffer.readableBytes > 0 else { return }
        guard partName == "file", !fileComplete else {
            throw stop(.malformed(Self.wrongPart(partName, second: partName == "file")))
        }
        fileBytes += buffer.readableBytes
        guard fileBytes <= limits.maxFileBytes else { throw stop(.tooLarge("uploads are at most \(limits.maxFileBytes) bytes")) }
        do {
            try onFileBytes(buffer)
        } catch {
            throw stop(.receiver(error))
        }
    }

    private func partComplete() throws(UploadRejection) {
        guard partName == "file", !fileComplete else { throw stop(.malformed(Self.wrongPart(partName, second: partName == "file"))) }
        fileComplete = true
        if let partType, !partType.isEmpty { mimeType = partType }
        partName = nil
        partType = nil
        framingBytes = 0
    }

    private static func wrongPart(_ name: String?, second: Bool) -> String {
        second ? "the upload has one part named 'file', not two" : "the upload's part must be named 'file', not '\(name ?? "")'"
    }

    /// Whether a byte may appear in a header's name (an RFC 7230 token character).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 48...57, 65...90, 97...122: true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The value of `name=` among the `;`-separated parameters of a header value, unquoted.
    static func parameter(_ name: String, in value: String) -> String? {
        for part in value.split(separator: ";") {
            let parameter = part.trimmingSpaces
            guard let equals = parameter.firstIndex(of: "="), parameter[..<equals].trimmingSpaces.lowercased() == name else { continue }
            var raw = parameter[parameter.index(after: equals)...].trimmingSpaces
            if raw.count >= 2, raw.hasPrefix("\""), raw.hasSuffix("\"") { raw = String(raw.dropFirst().dropLast()) }
            return raw
        }
        return nil
    }
}

/// The boundary of a `multipart/form-data` content type, checked as RFC 2046 (section 5.1.1)
/// defines it: 1 to 70 characters from its alphabet, not ending in a space.
enum MultipartBoundary {
    /// The characters a boundary may hold (`bcharsnospace` and the space).
    private static let alphabet = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'()+_,-./:=? ".utf8)

    /// The boundary of `contentType`, or why there is none.
    static func parse(contentType: String) throws(UploadRejection) -> String {
        let mediaType = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces.lowercased() }
        guard mediaType == "multipart/form-data" else {
            throw .notMultipart("the body must be multipart/form-data with a boundary, not '\(contentType.prefix(100))'")
        }
        guard let boundary = UploadParser.parameter("boundary", in: contentType) else {
            throw .notMultipart("the multipart/form-data content type names no boundary")
        }
        guard (1...70).contains(boundary.utf8.count), boundary.utf8.allSatisfy(alphabet.contains), boundary.last != " " else {
            throw .notMultipart("the boundary must be 1 to 70 characters of RFC 2046's alphabet, not ending in a space")
        }
        return boundary
    }
}

extension StringProtocol {
    /// The string without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
