import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The provider's HTTP endpoints (`POST /upload`, `GET /download/{assetId}`), as the transfer
/// cases call them.
struct ProviderHTTP: Sendable {
    /// An HTTP answer.
    struct Answer: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        /// The `code` of an `HttpError` body, if the body is one.
        var errorCode: String? {
            ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["code"] as? String
        }

        /// A header, by its name in any case.
        func header(_ name: String) -> String? {
            headers.first { $0.key.lowercased() == name.lowercased() }?.value
        }

        /// The status, and the body when it is JSON (else its size).
        var words: String {
            guard (try? JSONSerialization.jsonObject(with: body)) != nil else { return "\(status) (\(body.count) bytes)" }
            return "\(status) \(String(decoding: body.prefix(200), as: UTF8.self))"
        }
    }

    let base: URL
    let timeout: Duration
    let sendHTTP: @Sendable (URLRequest) async throws -> (Data, URLResponse)

    /// Uploads `bytes` as the one `file` part, of `mimeType`, with `token`.
    func upload(_ bytes: Data, mimeType: String, token: String?) async throws -> Answer {
        let boundary = "conformance-\(UUID().uuidString)"
        var body = Data("--\(boundary)\r\n".utf8)
        body += Data("Content-Disposition: form-data; name=\"file\"; filename=\"conformance.bin\"\r\n".utf8)
        body += Data("Content-Type: \(mimeType)\r\n\r\n".utf8)
        body += bytes
        body += Data("\r\n--\(boundary)--\r\n".utf8)
        var request = URLRequest(url: base.appendingPathComponent("upload"))
        request.httpMethod = "POST"
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        return try await send(request, token: token)
    }

    /// Downloads `assetID` with `token`.
    func download(_ assetID: String, token: String?) async throws -> Answer {
        try await send(URLRequest(url: base.appendingPathComponent("download").appendingPathComponent(assetID)), token: token)
    }

    private func send(_ request: URLRequest, token: String?) async throws -> Answer {
        var request = request
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.timeoutInterval = Double(timeout.components.seconds) + 1
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await sendHTTP(request)
        } catch {
            throw ConformanceSetupError("\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "") failed: \(error)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw ConformanceSetupError("\(request.url?.absoluteString ?? "") did not answer over HTTP")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
        return Answer(status: http.statusCode, headers: headers, body: data)
    }
}
