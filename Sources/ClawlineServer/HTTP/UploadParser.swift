import MultipartKit
import NIOCore

// This file is self-contained (MultipartKit and NIOCore only): the fuzz target
// `FuzzUploadParser` compiles it as it is, through a symbolic link.

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
    /// The most bytes of the preamble and of one part's headers; MultipartKit keeps a header
    /// line in memory until it ends, so this bounds its memory and time.
    var maxHeaderBytes = 16 * 1024
    /// What the whole body may carry beyond the file: boundaries, headers, an epilogue.
    var maxFramingBytes = 64 * 1024
    /// Bytes are fed to MultipartKit in slices of at most this many, so the header cap is
    /// checked at least this often (a part's headers are cut off within a slice of the cap).
    var sliceBytes = 4096

    /// The largest body, file and framing together.
    var maxBodyBytes: Int { maxFileBytes + maxFramingBytes }
}

/// Parses a `multipart/form-data` upload as it streams in: checks the boundary before
/// MultipartKit sees it (its parser stops the process on an empty one), caps the body, the file
/// and each part's headers, and hands the bytes of the part named `file` to `onFileBytes`.
/// Used by one request's task only.
final class UploadParser {
    private let limits: UploadLimits
    private let parser: MultipartParser
    private let onFileBytes: (ByteBuffer) throws -> Void

    /// The bytes fed since the last part's headers began (while no body byte was seen).
    private var headerBytes = 0
    private var inHeaders = true
    private var partName: String?
    private var partType: String?
    private var failure: UploadRejection?
    private var fileParts = 0

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
        parser = MultipartParser(boundary: boundary)
        parser.onHeader = { [unowned self] name, value in header(name, value) }
        parser.onBody = { [unowned self] buffer in body(buffer) }
        parser.onPartComplete = { [unowned self] in partComplete() }
    }

    /// Parses the next chunk of the body.
    func feed(_ chunk: ByteBuffer) throws(UploadRejection) {
        if let failure { throw failure }
        bodyBytes += chunk.readableBytes
        guard bodyBytes <= limits.maxBodyBytes else {
            throw stop(.tooLarge("an upload's body is at most \(limits.maxBodyBytes) bytes (a file of \(limits.maxFileBytes) and its framing)"))
        }
        var rest = chunk
        while rest.readableBytes > 0, let slice = rest.readSlice(length: min(limits.sliceBytes, rest.readableBytes)) {
            if inHeaders {
                headerBytes += slice.readableBytes
                guard headerBytes <= limits.maxHeaderBytes + limits.sliceBytes else {
                    throw stop(.tooLarge("a part's headers (and the preamble before them) are at most \(limits.maxHeaderBytes) bytes"))
                }
            }
            do {
                try parser.execute(slice)
            } catch {
                throw stop(.malformed("the multipart body is malformed"))
            }
            if let failure { throw failure }
        }
    }

    /// Checks the body is complete: one part named `file`, ended by the closing boundary.
    func finish() throws(UploadRejection) {
        if let failure { throw failure }
        guard fileComplete else { throw .malformed("the upload has no complete part named 'file'") }
    }

    private func stop(_ rejection: UploadRejection) -> UploadRejection {
        failure = failure ?? rejection
        return failure ?? rejection
    }

    private func header(_ name: String, _ value: String) {
        switch name.lowercased() {
        case "content-disposition":
            partName = Self.parameter("name", in: value)
        case "content-type":
            partType = value.trimmingSpaces
        default:
            break
        }
    }

    private func body(_ buffer: ByteBuffer) {
        if inHeaders {
            inHeaders = false
            headerBytes = 0
        }
        guard failure == nil else { return }
        guard partName == "file", fileParts == 0 else {
            failure = .malformed(Self.wrongPart(partName, second: partName == "file"))
            return
        }
        fileBytes += buffer.readableBytes
        guard fileBytes <= limits.maxFileBytes else {
            failure = .tooLarge("uploads are at most \(limits.maxFileBytes) bytes")
            return
        }
        do {
            try onFileBytes(buffer)
        } catch {
            failure = .receiver(error)
        }
    }

    private func partComplete() {
        inHeaders = true
        headerBytes = 0
        if failure == nil {
            if partName == "file", fileParts == 0 {
                fileComplete = true
                fileParts = 1
                if let partType, !partType.isEmpty { mimeType = partType }
            } else {
                failure = .malformed(Self.wrongPart(partName, second: partName == "file"))
            }
        }
        partName = nil
        partType = nil
    }

    private static func wrongPart(_ name: String?, second: Bool) -> String {
        second ? "the upload has one part named 'file', not two" : "the upload's part must be named 'file', not '\(name ?? "")'"
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
