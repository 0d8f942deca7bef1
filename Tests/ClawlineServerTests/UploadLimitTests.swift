import ClawlineProtocol
import Foundation
import NIOCore
import Testing

@testable import ClawlineServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What an upload may not do: reach a library's precondition, send unbounded headers or bodies,
/// pass its account's quotas, or have its type rendered as a page.
@Suite struct UploadLimitTests {
    @Test func aBadBoundaryIsInvalidMessageAndTheServerStaysUp() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let boundaries = [
                "boundary=", #"boundary="""#, "boundary=" + String(repeating: "b", count: 71), "boundary=\"ends in space \"", "boundary=at@sign",
            ]
            for boundary in boundaries {
                let answer = try await server.http(
                    "POST", "/upload", token: device.token, contentType: "multipart/form-data; \(boundary)",
                    body: Data("--\r\n\r\nx\r\n----\r\n".utf8))
                #expect(answer.status == 400 && answer.body.contains(#""code":"invalid_message""#), "\(boundary): \(answer)")
            }
            let version = try await server.http("GET", "/version")
            #expect(version.status == 200)
            let remaining = try FileManager.default.contentsOfDirectory(atPath: server.uploads)
            #expect(remaining.isEmpty, "refused uploads leave no file: \(remaining)")
        }
    }

    @Test func boundariesAreCheckedAsRFC2046Says() throws {
        #expect(try MultipartBoundary.parse(contentType: "multipart/form-data; boundary=abc") == "abc")
        #expect(try MultipartBoundary.parse(contentType: #"Multipart/Form-Data; charset=utf-8; boundary="a b:c""#) == "a b:c")
        #expect(try MultipartBoundary.parse(contentType: "multipart/form-data; boundary=" + String(repeating: "x", count: 70)).count == 70)
        for bad in ["multipart/form-data", "multipart/form-data; boundary=", #"multipart/form-data; boundary="""#, "text/plain; boundary=a"] {
            #expect(throws: UploadRejection.self, "\(bad)") { try MultipartBoundary.parse(contentType: bad) }
        }
    }

    @Test func aPartsHeadersAreCappedBeforeTheyAreParsed() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            var body = Data("--\(TestServer.boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"".utf8)
            body += Data(repeating: UInt8(ascii: "a"), count: 1 << 20)
            body += Data("\"\r\n\r\nx\r\n--\(TestServer.boundary)--\r\n".utf8)
            let answer = try await server.http(
                "POST", "/upload", token: device.token, contentType: "multipart/form-data; boundary=\(TestServer.boundary)", body: body)
            #expect(answer.status == 413 && answer.body.contains(#""code":"payload_too_large""#), "\(answer)")
        }
    }

    @Test func theParserStopsAtEachLimit() throws {
        let limits = UploadLimits(maxFileBytes: 100, maxHeaderBytes: 100, maxFramingBytes: 200)
        func parse(_ body: String) throws(UploadRejection) -> UploadParser {
            let parser = try UploadParser(contentType: "multipart/form-data; boundary=b", limits: limits) { _ in }
            try parser.feed(ByteBuffer(string: body))
            try parser.finish()
            return parser
        }
        let part = "--b\r\nContent-Disposition: form-data; name=\"file\"\r\nContent-Type: text/plain\r\n\r\n"
        let parsed = try parse(part + String(repeating: "x", count: 100) + "\r\n--b--\r\n")
        #expect(parsed.fileBytes == 100 && parsed.mimeType == "text/plain")
        #expect(throws: UploadRejection.self) { try parse(part + String(repeating: "x", count: 101) + "\r\n--b--\r\n") }
        #expect(throws: UploadRejection.self) { try parse("--b\r\nX-Long: " + String(repeating: "h", count: 200) + "\r\n\r\nx\r\n--b--\r\n") }
        #expect(throws: UploadRejection.self) { try parse(part + "x\r\n--b--\r\n" + String(repeating: "e", count: 400)) }
        #expect(throws: UploadRejection.self) { try parse(part + "x\r\n--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\ny\r\n--b--\r\n") }
        #expect(throws: UploadRejection.self) { try parse(part + "x") }
    }

    @Test func aBodyAnnouncedLargerThanTheLimitIsRefusedBeforeItIsRead() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let connection = try await RawConnection(port: server.port)
            let limit = UploadLimits(maxFileBytes: Clawline.Constants.maxUploadBytes).maxBodyBytes
            try await connection.send(
                "POST /upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(device.token)\r\n"
                    + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: \(limit + 1)\r\n\r\n--b\r\n")
            let answer = await connection.waitFor("payload_too_large")
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
            await connection.close()
        }
    }

    @Test func anAccountKeepsAtMostItsQuotaOfUploadBytes() async throws {
        try await TestServer.run(limits: ProviderLimits(uploadQuotaBytes: 10_000)) { server in
            let device = try await server.pair()
            #expect(try await server.upload(Data(count: 6000), token: device.token).status == 200)
            let over = try await server.upload(Data(count: 6000), token: device.token)
            #expect(over.status == 413 && over.body.contains(#""code":"payload_too_large""#) && over.body.contains("10000"), "\(over)")
            #expect(try await server.upload(Data(count: 4000), token: device.token).status == 200)
            #expect(try await server.upload(Data(count: 1), token: device.token).status == 413)
        }
    }

    @Test func anAccountSendsAtMostItsNumberOfUploadsAtOnce() async throws {
        try await TestServer.run(limits: ProviderLimits(maxConcurrentUploadsPerAccount: 1)) { server in
            let device = try await server.pair()
            // An upload on its way (its body not complete) holds the account's one slot.
            let held = try await RawConnection(port: server.port)
            try await held.send(
                "POST /upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(device.token)\r\n"
                    + "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000\r\n\r\n"
                    + "--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nsome bytes")
            // It holds the slot once its temporary file is there.
            let holding = try await server.eventually {
                (try? FileManager.default.contentsOfDirectory(atPath: server.uploads))?.contains { $0.hasPrefix(".upload-") } == true
            }
            #expect(holding)
            let second = try await server.upload(Data(count: 1), token: device.token)
            #expect(second.status == 429 && second.body.contains(#""code":"rate_limited""#), "\(second)")
            await held.close()
            // Once the held upload ends, the slot is free again.
            #expect(try await server.eventually { try await server.upload(Data(count: 1), token: device.token).status == 200 })
        }
    }

    @Test func theQuotaCountsUploadsInProgressAndForgetsEndedOnes() throws {
        let quota = UploadQuota(maxConcurrent: 2, maxBytes: 100)
        let first = try quota.begin(userID: "u")
        let second = try quota.begin(userID: "u")
        #expect(throws: UploadQuota.Refusal.tooManyAtOnce(limit: 2)) { try quota.begin(userID: "u") }
        let other = try quota.begin(userID: "v")
        try quota.add(60, to: first, stored: 10)
        #expect(throws: UploadQuota.Refusal.overQuota(limit: 100)) { try quota.add(31, to: second, stored: 10) }
        try quota.add(30, to: second, stored: 10)
        try quota.add(100, to: other, stored: 0)
        quota.end(first)
        quota.end(second)
        _ = try quota.begin(userID: "u")
    }

    @Test func downloadsAreAttachmentsThatABrowserDoesNotSniff() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            for (declared, served) in [
                ("text/html; charset=utf-8", "text/html"), ("image/png", "image/png"), ("<script>", "application/octet-stream"),
            ] {
                let uploaded = try await server.upload(Data("<h1>hi</h1>".utf8), mimeType: declared, token: device.token)
                let asset = try UploadedAsset.decode(Array(uploaded.body.utf8))
                #expect(asset.mimeType == served)
                let (_, http) = try await server.fetch("GET", "/download/" + asset.assetId.rawValue, token: device.token)
                #expect(http.value(forHTTPHeaderField: "Content-Type") == served)
                #expect(http.value(forHTTPHeaderField: "X-Content-Type-Options") == "nosniff")
                #expect(http.value(forHTTPHeaderField: "Content-Disposition") == "attachment")
            }
        }
    }
}
