import NIOCore

/// Any bytes as an upload request: the first line is the `Content-Type` header, the rest the
/// body, fed in chunks whose sizes the input's first byte picks. Parsing never traps (whatever
/// the boundary), never hands on more file bytes than the limit, refuses a body past its limit,
/// and a body it accepts has its file part complete.
func fuzzUploadParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let chunkSize = Int(bytes[0]) % 64 + 1
    let input = bytes.dropFirst()
    let newline = input.firstIndex(of: 10) ?? input.endIndex
    let contentType = String(decoding: input[..<newline], as: UTF8.self)
    let body = input[newline...].dropFirst()
    // Small limits, so that every cap is reached within the fuzzer's inputs.
    let limits = UploadLimits(maxFileBytes: 1024, maxHeaderBytes: 128, maxFramingBytes: 512)
    var delivered = 0
    let parser: UploadParser
    do {
        parser = try UploadParser(contentType: contentType, limits: limits) { buffer in delivered += buffer.readableBytes }
    } catch {
        return 0
    }
    var offset = body.startIndex
    do {
        while offset < body.endIndex {
            let end = min(offset + chunkSize, body.endIndex)
            try parser.feed(ByteBuffer(bytes: body[offset..<end]))
            offset = end
        }
        try parser.finish()
    } catch {
        guard delivered <= limits.maxFileBytes else { fatalError("a refused upload handed on \(delivered) file bytes") }
        return 0
    }
    guard parser.fileComplete, delivered == parser.fileBytes, delivered <= limits.maxFileBytes, parser.bodyBytes <= limits.maxBodyBytes else {
        fatalError("an accepted upload broke a limit: \(delivered) file bytes, \(parser.bodyBytes) body bytes")
    }
    return 0
}
