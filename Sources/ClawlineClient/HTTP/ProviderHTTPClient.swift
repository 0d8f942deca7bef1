import ClawlineProtocol
import Foundation
import WireRuntime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The provider's HTTP endpoints, as the services use them: injected like the transport, so
/// uploads, downloads and the version check can be faked.
public protocol ProviderHTTP: Sendable {
    /// The protocol version the server speaks.
    func protocolVersion() async throws -> Int
    /// Uploads `bytes`; returns the asset to attach to a message.
    func upload(_ bytes: Data, mimeType: String, fileName: String, token: String) async throws -> UploadedAsset
    /// Downloads an asset with its MIME type.
    func download(assetId: AssetId, token: String) async throws -> (data: Data, mimeType: String?)
}

extension ProviderHTTP {
    /// Fails with ``ClawlineClientError/updateRequired(serverVersion:)`` unless the server speaks
    /// this client's protocol version.
    public func checkVersion() async throws {
        let version = try await protocolVersion()
        guard version == Clawline.Constants.protocolVersion else { throw ClawlineClientError.updateRequired(serverVersion: version) }
    }
}

/// The provider's HTTP endpoints: `GET /version`, `POST /upload` and `GET /download/:assetId`,
/// over ``PlatformHTTPExchange``'s default or any ``HTTPExchange`` (`NIOHTTPExchange` trusts a
/// private CA on every platform).
///
/// Every JSON body is decoded with the generated types, so a malformed answer is reported with
/// what was wrong, never half-read. HTTP errors carry the status and the server's error code.
public struct ProviderHTTPClient: ProviderHTTP {
    /// The provider's base URL (`http://host:port`).
    public let baseURL: URL
    private let exchange: any HTTPExchange

    /// A client of the provider at `baseURL`, over ``PlatformHTTPExchange``'s default.
    public init(baseURL: URL) {
        self.init(baseURL: baseURL, exchange: PlatformHTTPExchange.make())
    }

    /// A client of the provider at `baseURL`, over `session`.
    public init(baseURL: URL, session: URLSession) {
        self.init(baseURL: baseURL, exchange: URLSessionExchange(session: session))
    }

    /// A client of the provider at `baseURL`, over `exchange`.
    public init(baseURL: URL, exchange: any HTTPExchange) {
        self.baseURL = baseURL
        self.exchange = exchange
    }

    /// The protocol version the server speaks.
    public func protocolVersion() async throws -> Int {
        let (data, _) = try await perform(URLRequest(url: endpoint("version")))
        return try decode(VersionInfo.self, from: data, what: "GET /version").protocolVersion
    }

    /// Uploads `bytes` as the multipart field `file`; returns the asset to attach to a message.
    /// Larger than the spec's `maxUploadBytes` fails locally, before anything is sent.
    public func upload(_ bytes: Data, mimeType: String, fileName: String = "file", token: String) async throws -> UploadedAsset {
        guard bytes.count <= Clawline.Constants.maxUploadBytes else {
            throw ClawlineClientError.invalidMessage(
                "the file has \(bytes.count) bytes; uploads are limited to \(Clawline.Constants.maxUploadBytes) bytes")
        }
        let boundary = "clawline-\(UUID().uuidString)"
        var request = URLRequest(url: endpoint("upload"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        let safeName = fileName.replacingOccurrences(of: "\"", with: "_").replacingOccurrences(of: "\r", with: "").replacingOccurrences(
            of: "\n", with: "")
        var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(safeName)\"\r\n".utf8)
        body += Data("Content-Type: \(mimeType)\r\n\r\n".utf8)
        body += bytes
        body += Data("\r\n--\(boundary)--\r\n".utf8)
        request.httpBody = body
        let (data, _) = try await perform(request)
        return try decode(UploadedAsset.self, from: data, what: "POST /upload")
    }

    /// Downloads an asset: its bytes and the stored MIME type.
    public func download(assetId: AssetId, token: String) async throws -> (data: Data, mimeType: String?) {
        var request = URLRequest(url: endpoint("download/\(assetId)"))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await perform(request)
        return (data, response.value(forHTTPHeaderField: "Content-Type"))
    }

    private func endpoint(_ path: String) -> URL { baseURL.appendingPathComponent(path) }

    private func perform(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await exchange.send(request)
        } catch {
            throw ClawlineClientError.connectionFailed("\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "?"): \(error)")
        }
        guard let http = response as? HTTPURLResponse else { throw ClawlineClientError.connectionFailed("not an HTTP response") }
        guard (200..<300).contains(http.statusCode) else {
            let failure = try? HttpError.decode(data)
            throw ClawlineClientError.http(
                status: http.statusCode, code: failure?.code, message: failure?.message ?? String(decoding: data.prefix(200), as: UTF8.self))
        }
        return (data, http)
    }

    private func decode<Value: WireValue>(_ type: Value.Type, from data: Data, what: String) throws -> Value {
        do {
            return try Value.decode(data)
        } catch {
            throw ClawlineClientError.connectionFailed("\(what) answered a body that breaks the protocol: \(error)")
        }
    }
}

/// One HTTP request and its response: how ``ProviderHTTPClient`` reaches the provider.
public protocol HTTPExchange: Sendable {
    /// Sends `request` and returns the response's body and head (any status).
    func send(_ request: URLRequest) async throws -> (Data, URLResponse)
}

/// ``HTTPExchange`` over a `URLSession` (the system's trust store).
public struct URLSessionExchange: HTTPExchange {
    /// The session requests go through.
    public var session: URLSession

    /// An exchange over `session`.
    public init(session: URLSession = .shared) { self.session = session }

    public func send(_ request: URLRequest) async throws -> (Data, URLResponse) {
        try await session.data(for: request)
    }
}
