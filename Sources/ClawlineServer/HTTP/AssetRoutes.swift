import ClawlineProtocol
import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// `POST /upload` and `GET /download/{assetId}`: files too large to send inline, kept in the
/// uploads directory under their asset id, for the devices of the account that uploaded them.
struct AssetRoutes: Sendable {
    let hub: ProviderHub
    let directory: String

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
        guard let contentType = request.headers[.contentType], let boundary = Self.boundary(of: contentType) else {
            throw HTTPFailure(.invalidMessage, "the body must be multipart/form-data with a boundary")
        }
        let assetID = "a_" + UUID().uuidString.lowercased()
        let receiver: UploadReceiver
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            receiver = try UploadReceiver(path: (directory as NSString).appendingPathComponent(".upload-" + assetID))
        } catch {
            throw HTTPFailure(.uploadFailedRetryable, "the file could not be stored; try again")
        }
        defer { receiver.discard() }
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in receiver.header(name, value) }
        parser.onBody = { buffer in receiver.body(&buffer) }
        parser.onPartComplete = { receiver.partComplete() }
        for try await chunk in request.body {
            do {
                try parser.execute(chunk)
            } catch {
                throw HTTPFailure(.invalidMessage, "the multipart body is malformed")
            }
            if let failure = receiver.failure { throw failure }
        }
        if let failure = receiver.failure { throw failure }
        guard receiver.fileComplete else { throw HTTPFailure(.invalidMessage, "the upload has no part named 'file'") }
        let asset = AssetRecord(
            assetID: assetID, userID: device.userID, mimeType: receiver.mimeType, size: receiver.size, uploadedAt: hub.environment.now())
        do {
            let path = AssetRecord.path(of: assetID, in: directory)
            try receiver.finish(at: path)
            try await hub.store.save(asset)
            if hub.store.holdsAssetBytes {
                // The store keeps the bytes, for every node; the file was only on the way.
                defer { try? FileManager.default.removeItem(atPath: path) }
                try await hub.store.saveAssetBytes(assetID, fromFile: path)
            }
        } catch {
            throw HTTPFailure(.uploadFailedRetryable, "the file could not be stored; try again")
        }
        return HTTPResponses.json(UploadedAsset(assetId: assetID, mimeType: asset.mimeType, size: asset.size).encoded())
    }

    private func download(_ request: Request, assetID: String) async throws -> Response {
        let device = try await authorize(request)
        guard assetID.hasPrefix("a_"), UUID(uuidString: String(assetID.dropFirst(2))) != nil else {
            throw HTTPFailure(.invalidMessage, "'\(assetID)' is not an asset id (a_ and a UUID)")
        }
        guard let asset = try await hub.store.asset(assetID), asset.userID == device.userID else {
            throw HTTPFailure(.assetNotFound, "no asset '\(assetID)' belongs to this account")
        }
        let body = hub.store.holdsAssetBytes ? storedBody(of: asset) : try fileBody(of: asset)
        return Response(status: .ok, headers: [.contentType: asset.mimeType, .contentLength: String(asset.size)], body: body)
    }

    /// An upload's bytes as the store holds them, chunk by chunk.
    private func storedBody(of asset: AssetRecord) -> ResponseBody {
        let store = hub.store
        return ResponseBody(contentLength: asset.size) { writer in
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

    /// The boundary parameter of a `multipart/form-data` content type.
    static func boundary(of contentType: String) -> String? {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data" else { return nil }
        for part in parts.dropFirst() where part.lowercased().hasPrefix("boundary=") {
            let value = part.dropFirst("boundary=".count)
            return value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 ? String(value.dropFirst().dropLast()) : String(value)
        }
        return nil
    }
}

/// Streams the `file` part of a multipart upload to a temporary file, at most `maxUploadBytes`.
/// Used by one request's task only.
private final class UploadReceiver: @unchecked Sendable {
    private let path: String
    private let handle: FileHandle
    private var partName: String?
    private var partType: String?
    private var finished = false
    private(set) var mimeType = "application/octet-stream"
    private(set) var size = 0
    private(set) var fileComplete = false
    private(set) var failure: HTTPFailure?

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw HTTPFailure(.uploadFailedRetryable, "cannot create \(path)") }
        self.path = path
        self.handle = handle
    }

    func header(_ name: String, _ value: String) {
        switch name.lowercased() {
        case "content-disposition":
            partName = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix("name=") }
                .map { String($0.dropFirst("name=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        case "content-type":
            partType = value.trimmingCharacters(in: .whitespaces)
        default:
            break
        }
    }

    func body(_ buffer: inout ByteBuffer) {
        guard failure == nil else { return }
        guard partName == "file" else {
            failure = HTTPFailure(.invalidMessage, "the upload's part must be named 'file', not '\(partName ?? "")'")
            return
        }
        size += buffer.readableBytes
        guard size <= Clawline.Constants.maxUploadBytes else {
            failure = HTTPFailure(.payloadTooLarge, "uploads are at most \(Clawline.Constants.maxUploadBytes) bytes")
            return
        }
        do {
            try handle.write(contentsOf: buffer.readableBytesView)
        } catch {
            failure = HTTPFailure(.uploadFailedRetryable, "the file could not be stored; try again")
        }
    }

    func partComplete() {
        if partName == "file", failure == nil {
            fileComplete = true
            if let partType, !partType.isEmpty { mimeType = partType }
        } else if failure == nil {
            failure = HTTPFailure(.invalidMessage, "the upload's part must be named 'file', not '\(partName ?? "")'")
        }
        partName = nil
        partType = nil
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
