import ClawlineProtocol
import Foundation
import Hummingbird
import NIOCore

/// `POST /upload` and `GET /download/{assetId}`: files too large to send inline, kept in the
/// uploads directory under their asset id, for the devices of the account that uploaded them.
struct AssetRoutes: Sendable {
    let hub: ProviderHub
    let directory: String
    let quota: UploadQuota
    let limits = UploadLimits(maxFileBytes: Clawline.Constants.maxUploadBytes)

    func register(on router: Router<BasicRequestContext>) {
        router.post("/upload") { request, _ in
            do {
                return try await upload(request)
            } catch let failure as HTTPFailure {
                return failure.response
            }
        }
        router.get("/download/{assetId}") { request, context in
            do {
                return try await download(request, assetID: context.parameters.get("assetId") ?? "")
            } catch let failure as HTTPFailure {
                return failure.response
            }
        }
    }

    /// The device a request's bearer token names.
    private func authorize(_ request: Request) async throws(HTTPFailure) -> AuthenticatedDevice {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw HTTPFailure(.authFailed, "send the device's token as 'Authorization: Bearer TOKEN'")
        }
        return try await hub.authorize(bearer: String(header.dropFirst("Bearer ".count)))
    }

    private func upload(_ request: Request) async throws -> Response {
        let device = try await authorize(request)
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limits.maxBodyBytes {
            throw HTTPFailure(
                .payloadTooLarge, "an upload's body is at most \(limits.maxBodyBytes) bytes (a file of \(limits.maxFileBytes) and its framing)")
        }
        let ticket = try Self.refusing { () throws(UploadQuota.Refusal) in try quota.begin(userID: device.userID) }
        defer { quota.end(ticket) }
        let stored = try await storedBytes(of: device.userID)
        let assetID = "a_" + RandomUUID.version4().lowercased
        let receiver: UploadReceiver
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            receiver = try UploadReceiver(path: (directory as NSString).appendingPathComponent(".upload-" + assetID))
        } catch {
            throw HTTPFailure(.uploadFailedRetryable, "the file could not be stored; try again")
        }
        defer { receiver.discard() }
        let parser = try Self.refusing { () throws(UploadRejection) in
            try UploadParser(contentType: request.headers[.contentType], limits: limits) { bytes in
                try quota.add(bytes.readableBytes, to: ticket, stored: stored)
                try receiver.write(bytes)
            }
        }
        for try await chunk in request.body {
            try Self.refusing { () throws(UploadRejection) in try parser.feed(chunk) }
        }
        try Self.refusing { () throws(UploadRejection) in try parser.finish() }
        // Uploads of the account that ended meanwhile are in the store now: the quota is checked
        // once more against what it holds.
        let storedNow = try await storedBytes(of: device.userID)
        try Self.refusing { () throws(UploadQuota.Refusal) in try quota.add(0, to: ticket, stored: storedNow) }
        let asset = AssetRecord(
            assetID: assetID, userID: device.userID, mimeType: Self.servedType(parser.mimeType), size: parser.fileBytes,
            uploadedAt: hub.environment.now())
        // The record is the commit: it is stored with the bytes or after them, never before, so an
        // asset a message may name always has its bytes, and a failure leaves no record behind.
        do {
            let path = AssetRecord.path(of: assetID, in: directory)
            try receiver.finish(at: path)
            if let store = hub.store as? any AssetBytesStore {
                // The store keeps the bytes, for every node; the file was only on the way.
                defer { try? FileManager.default.removeItem(atPath: path) }
                try await store.save(asset, bytesFromFile: path)
            } else {
                do {
                    try await hub.store.save(asset)
                } catch {
                    try? FileManager.default.removeItem(atPath: path)
                    throw error
                }
            }
        } catch {
            throw HTTPFailure(.uploadFailedRetryable, "the file could not be stored; try again")
        }
        return HTTPResponses.json(UploadedAsset(assetId: AssetId(assetID), mimeType: asset.mimeType, size: asset.size).encoded())
    }

    private func download(_ request: Request, assetID: String) async throws -> Response {
        let device = try await authorize(request)
        guard assetID.hasPrefix("a_"), UUID(uuidString: String(assetID.dropFirst(2))) != nil else {
            throw HTTPFailure(.invalidMessage, "'\(assetID)' is not an asset id (a_ and a UUID)")
        }
        guard let asset = try await hub.store.asset(assetID), asset.userID == device.userID || hub.faults.has(.downloadsAcrossAccounts) else {
            throw HTTPFailure(.assetNotFound, "no asset '\(assetID)' belongs to this account")
        }
        let body = if let store = hub.store as? any AssetBytesStore { storedBody(of: asset, in: store) } else { try fileBody(of: asset) }
        var headers: HTTPFields = [
            .contentType: asset.mimeType, .contentLength: String(asset.size), .contentDisposition: "attachment",
            .xContentTypeOptions: "nosniff",
        ]
        if hub.faults.has(.downloadsWithoutNosniff) { headers[.xContentTypeOptions] = nil }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// An upload's bytes as the store holds them, chunk by chunk.
    private func storedBody(of asset: AssetRecord, in store: any AssetBytesStore) -> ResponseBody {
        ResponseBody(contentLength: asset.size) { writer in
            var index = 0
            while let chunk = try await store.assetBytes(asset.assetID, chunk: index) {
                try await writer.write(ByteBuffer(bytes: chunk))
                index += 1
            }
            try await writer.finish(nil)
        }
    }

    /// An upload's bytes from its file in the uploads directory.
    private func fileBody(of asset: AssetRecord) throws(HTTPFailure) -> ResponseBody {
        // Opened before answering: once open, the file stays readable even if the retention sweep
        // removes it meanwhile, so a download never ends short.
        guard let file = FileHandle(forReadingAtPath: AssetRecord.path(of: asset.assetID, in: directory)) else {
            throw HTTPFailure(.assetNotFound, "no asset '\(asset.assetID)' belongs to this account")
        }
        let handle = UncheckedSendableFile(handle: file)
        return ResponseBody(contentLength: asset.size) { writer in
            defer { try? handle.handle.close() }
            while let chunk = try handle.handle.read(upToCount: 128 * 1024), !chunk.isEmpty {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        }
    }

    /// The bytes the account keeps, as the store counts them.
    private func storedBytes(of userID: String) async throws(HTTPFailure) -> Int {
        do {
            return try await hub.store.storedUploadBytes(userID: userID)
        } catch {
            throw HTTPFailure(.uploadFailedRetryable, "the account's uploads could not be counted; try again")
        }
    }

    /// Runs `body`, answering its refusal as the spec says: a quota's with `rate_limited` (too
    /// many at once) or `payload_too_large` (too many bytes).
    private static func refusing<T>(_ body: () throws(UploadQuota.Refusal) -> T) throws(HTTPFailure) -> T {
        do {
            return try body()
        } catch {
            throw failure(for: error)
        }
    }

    private static func failure(for refusal: UploadQuota.Refusal) -> HTTPFailure {
        switch refusal {
        case .tooManyAtOnce: HTTPFailure(.rateLimited, refusal.message)
        case .overQuota: HTTPFailure(.payloadTooLarge, refusal.message)
        }
    }

    /// Runs `body`, answering a refused body as the spec says.
    private static func refusing<T>(_ body: () throws(UploadRejection) -> T) throws(HTTPFailure) -> T {
        do {
            return try body()
        } catch {
            switch error {
            case .notMultipart(let message), .malformed(let message): throw HTTPFailure(.invalidMessage, message)
            case .tooLarge(let message): throw HTTPFailure(.payloadTooLarge, message)
            case .receiver(let refusal as UploadQuota.Refusal): throw failure(for: refusal)
            case .receiver: throw HTTPFailure(.uploadFailedRetryable, "the file could not be stored; try again")
            }
        }
    }

    /// The type an upload is kept and served with: the part's own when it is a plain
    /// `type/subtype` (parameters dropped), `application/octet-stream` otherwise. Downloads are
    /// served as attachments with `nosniff`, so no type is rendered by a browser as a page.
    static func servedType(_ declared: String?) -> String {
        let fallback = "application/octet-stream"
        guard let declared, let essence = declared.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else {
            return fallback
        }
        let token = Set("abcdefghijklmnopqrstuvwxyz0123456789!#$&-^_.+".utf8)
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 127 && $0.utf8.allSatisfy(token.contains) }) else { return fallback }
        return essence
    }
}

/// Writes an upload's file bytes to a temporary file, moved into place once the upload is
/// complete. Used by one request's task only.
private final class UploadReceiver: @unchecked Sendable {
    private let path: String
    private let handle: FileHandle
    private var finished = false

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw HTTPFailure(.uploadFailedRetryable, "cannot create \(path)") }
        self.path = path
        self.handle = handle
    }

    func write(_ bytes: ByteBuffer) throws {
        try handle.write(contentsOf: bytes.readableBytesView)
    }

    /// Moves the file to `destination`.
    func finish(at destination: String) throws {
        try handle.close()
        try FileManager.default.moveItem(atPath: path, toPath: destination)
        finished = true
    }

    /// Deletes the temporary file unless it was kept.
    func discard() {
        guard !finished else { return }
        try? handle.close()
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A file handle read by one response body only.
private struct UncheckedSendableFile: @unchecked Sendable {
    let handle: FileHandle
}
