import ClawlineProtocol
import Foundation
import Testing
import WireRuntime

@testable import ClawlineServer

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Uploads, downloads, and the maintenance that deletes unreferenced uploads and closes revoked devices.
@Suite struct AssetTests {
    @Test func anUploadIsAttachedToAMessageAndDownloadedWithItsType() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let bytes = Data((0..<5000).map { UInt8($0 % 251) })
            let uploaded = try await server.upload(bytes, token: device.token)
            #expect(uploaded.status == 200)
            let asset = try UploadedAsset.decode(Array(uploaded.body.utf8))
            #expect(asset.mimeType == "image/png" && asset.size == 5000 && asset.assetId.rawValue.hasPrefix("a_"))

            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: "file", attachments: .value([.asset(AssetAttachment(assetId: asset.assetId))]))))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            #expect(try await socket.next().serverMessage?.attachments == [.asset(AssetAttachment(assetId: asset.assetId))])

            let (data, response) = try await server.fetch("GET", "/download/" + asset.assetId.rawValue, token: device.token)
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "image/png")
            #expect(data == bytes)
        }
    }

    @Test func uploadsAreRefusedWithTheSpecsCodesAndStatuses() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let anonymous = try await server.upload(Data("x".utf8), token: nil)
            #expect(anonymous.status == 401 && anonymous.body.contains(#""code":"auth_failed""#))
            let forged = try await server.upload(Data("x".utf8), token: "forged")
            #expect(forged.status == 401)
            let wrongField = try await server.upload(Data("x".utf8), field: "attachment", token: device.token)
            #expect(wrongField.status == 400 && wrongField.body.contains(#""code":"invalid_message""#))
            let notMultipart = try await server.http("POST", "/upload", token: device.token, contentType: "image/png", body: Data("x".utf8))
            #expect(notMultipart.status == 400)
            let unknown = try await server.http("GET", "/download/a_123e4567-e89b-12d3-a456-426614174000", token: device.token)
            #expect(unknown.status == 404 && unknown.body.contains(#""code":"asset_not_found""#))
            let malformed = try await server.http("GET", "/download/nope", token: device.token)
            #expect(malformed.status == 400)
            let remaining = try FileManager.default.contentsOfDirectory(atPath: server.uploads)
            #expect(remaining.isEmpty, "refused uploads leave no file: \(remaining)")
        }
    }

    @Test func anotherAccountCannotDownloadOrAttachAnUpload() async throws {
        try await TestServer.run { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            let otherID = TestServer.newDeviceID()
            let pairing = server.socket()
            pairing.send(.pairRequest(PairRequest(deviceId: otherID, deviceInfo: TestServer.deviceInfo)))
            _ = try await adminSocket.next()
            adminSocket.send(.pairDecision(PairDecision(deviceId: otherID, approve: true, userId: UserId("user_" + UUID().uuidString.lowercased()))))
            guard case .pairResult(.success(let other)) = try await pairing.next() else { throw TestFailure("expected a success") }

            let uploaded = try await server.upload(Data("secret".utf8), token: admin.token)
            let asset = try UploadedAsset.decode(Array(uploaded.body.utf8))
            let download = try await server.http("GET", "/download/" + asset.assetId.rawValue, token: other.token)
            #expect(download.status == 404)
            let (socket, _) = try await server.connect(PairedDevice(deviceID: otherID, token: other.token, userID: other.userId))
            socket.send(.message(ClientMessage(id: "c_1", content: "x", attachments: .value([.asset(AssetAttachment(assetId: asset.assetId))]))))
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected an error") }
            #expect(error.code == .assetNotFound)
        }
    }

    /// The contract's hour, and a retention an operator set (`--upload-retention`): past it, not
    /// past the hour, the upload goes.
    @Test(arguments: [Clawline.Constants.uploadRetention, .seconds(120)])
    func anUploadNoMessageReferencesIsDeletedAfterTheRetention(_ retention: Duration) async throws {
        try await TestServer.run(limits: ProviderLimits(uploadRetention: retention)) { server in
            let device = try await server.pair()
            let kept = try UploadedAsset.decode(Array(try await server.upload(Data("kept".utf8), token: device.token).body.utf8))
            let dropped = try UploadedAsset.decode(Array(try await server.upload(Data("dropped".utf8), token: device.token).body.utf8))
            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: "x", attachments: .value([.asset(AssetAttachment(assetId: kept.assetId))]))))
            #expect(try await socket.next() == .ack(Ack(id: "c_1")))
            server.date.advance(by: TimeInterval(retention.components.seconds + 1))
            let deleted = try await server.eventually { try await server.store.asset(dropped.assetId.rawValue) == nil }
            #expect(deleted)
            #expect(try await server.http("GET", "/download/" + dropped.assetId.rawValue, token: device.token).status == 404)
            #expect(try await server.http("GET", "/download/" + kept.assetId.rawValue, token: device.token).status == 200)
            #expect(try await server.eventually { !FileManager.default.fileExists(atPath: server.uploads + "/" + dropped.assetId.rawValue) })
        }
    }

    @Test func aRevocationWhileConnectedClosesTheSocketWithTokenRevoked() async throws {
        try await TestServer.run { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            var record = try #require(try await server.store.device(device.deviceID.rawValue))
            record.status = .revoked
            try await server.store.save(record)
            // A tick now, rather than waiting for the next real-time one (every 50 ms, but late on a
            // loaded machine): the socket hears the revocation as a result of this call.
            await server.hub.maintain(uploadsDirectory: server.uploads)
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected an error") }
            #expect(error.code == .tokenRevoked)
            #expect(try await socket.closeCode() == 1008)
            let upload = try await server.upload(Data("x".utf8), token: device.token)
            #expect(upload.status == 403 && upload.body.contains(#""code":"token_revoked""#))
        }
    }
}
