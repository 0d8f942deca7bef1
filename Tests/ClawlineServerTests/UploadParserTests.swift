import Foundation
import NIOCore
import Testing

@testable import ClawlineServer

/// The multipart reader of uploads: byte-exact files however the body is cut, and a refusal,
/// never a trap, for any bytes.
@Suite struct UploadParserTests {
    let limits = UploadLimits(maxFileBytes: 1 << 20)

    /// Parses `body` fed in chunks of `chunk` bytes; the file's bytes, or the refusal.
    func parse(_ body: [UInt8], boundary: String = "b", chunk: Int = .max) -> Result<(file: [UInt8], type: String?), UploadRejection> {
        var file: [UInt8] = []
        do {
            let parser = try UploadParser(contentType: "multipart/form-data; boundary=\(boundary)", limits: limits) { bytes in
                file += bytes.readableBytesView
            }
            var offset = 0
            while offset < body.count {
                let end = min(body.count, offset + chunk)
                try parser.feed(ByteBuffer(bytes: body[offset..<end]))
                offset = end
            }
            try parser.finish()
            return .success((file, parser.mimeType))
        } catch {
            return .failure(error)
        }
    }

    func upload(_ content: [UInt8], boundary: String = "b", preamble: String = "", epilogue: String = "") -> [UInt8] {
        Array(
            "\(preamble)--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"é.txt\"\r\nContent-Type: text/plain\r\n\r\n".utf8)
            + content + Array("\r\n--\(boundary)--\(epilogue)".utf8)
    }

    @Test func aFileComesOutByteForByteHoweverTheBodyIsCut() throws {
        // Bytes that start the delimiter without finishing it belong to the file.
        let content = Array("line\r\nnext\r\n-\r\n--\r\n--x\r\r\n--bn\r\n--bnX\r\n-".utf8) + (0...255).map { UInt8($0) }
        for chunk in [1, 2, 3, 7, 64, .max] {
            let body = upload(content, boundary: "bnd", preamble: "ignored preamble\r\n", epilogue: "\r\nignored epilogue")
            let result = parse(body, boundary: "bnd", chunk: chunk)
            guard case .success(let parsed) = result else { throw TestFailure("chunks of \(chunk): \(result)") }
            #expect(parsed.file == content, "chunks of \(chunk)")
            #expect(parsed.type == "text/plain")
        }
        guard case .success(let empty) = parse(upload([])) else { throw TestFailure("an empty file is a file") }
        #expect(empty.file.isEmpty)
        // A boundary that repeats itself ("aab" in "aaab") is still found.
        let overlapping = parse(upload(Array("xx\r\n--aa".utf8), boundary: "aab"), boundary: "aab", chunk: 1)
        guard case .success(let repeated) = overlapping else { throw TestFailure("a self-overlapping boundary: \(overlapping)") }
        #expect(repeated.file == Array("xx\r\n--aa".utf8))
    }

    @Test func malformedBodiesAreRefusedNotTrapped() {
        let bodies: [[UInt8]] = [
            // A header name with a byte over 127 (MultipartKit traps on it).
            Array("--b\r\nCont".utf8) + [0xFF] + Array("ent: x\r\n\r\nabc\r\n--b--".utf8),
            Array("--b\r\nno colon here\r\n\r\nabc\r\n--b--".utf8),
            Array("--b\r\n: empty name\r\n\r\nabc\r\n--b--".utf8),
            Array("--b\r\nContent-Disposition: form-data; name=\"file\"\n\r\nabc\r\n--b--".utf8),
            Array("--bX\r\n".utf8),
            Array("--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc".utf8),
            Array("no boundary at all".utf8),
            Array("--b\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\nabc\r\n--b--".utf8),
            Array("--b\r\nContent-Disposition: form-data; name=\"other\"\r\n\r\n\r\n--b--".utf8),
        ]
        for body in bodies {
            guard case .failure(let rejection) = parse(body) else {
                Issue.record("accepted: \(String(decoding: body, as: UTF8.self))")
                continue
            }
            guard case .malformed = rejection else {
                Issue.record("\(rejection) for \(String(decoding: body, as: UTF8.self))")
                continue
            }
        }
    }

    @Test func theFuzzersFindsStayFixed() throws {
        // Found by FuzzUploadParser: a byte over 127 in a part's header name.
        let found = try Data(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Uploads/fuzz-header-byte.bin"))
        let bytes = [UInt8](found)
        let newline = try #require(bytes.firstIndex(of: 10))
        let contentType = String(decoding: bytes[1..<newline], as: UTF8.self)
        let parser = try UploadParser(contentType: contentType, limits: limits) { _ in }
        #expect(throws: UploadRejection.self) {
            try parser.feed(ByteBuffer(bytes: bytes[(newline + 1)...]))
            try parser.finish()
        }
    }
}
