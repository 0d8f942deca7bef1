import ClawlineProtocol
import Foundation
import NIOConcurrencyHelpers
import Testing
import WireRuntime

@testable import ClawlineServer

/// What the server answers when it cannot do its part.
@Suite struct FailureTests {
    @Test func aMessageThatCannotBeStoredIsAnsweredServerErrorAndNotAcknowledged() async throws {
        try await TestServer.run(wrapStore: { HookedStore(base: $0, accept: { throw HookedStore.DiskFull() }) }) { server in
            let device = try await server.pair()
            let (socket, _) = try await server.connect(device)
            socket.send(.message(ClientMessage(id: "c_1", content: "hi")))
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected server_error") }
            #expect(error.code == .serverError && error.messageId == "c_1")
            // A marker the server answers at once: whatever it sent for the message would come before it.
            socket.send(text: "{}")
            guard case .error(let marker) = try await socket.next() else { throw TestFailure("expected the marker's answer first") }
            #expect(marker.code == .invalidMessage, "no ack, no echo, no answer came before the marker")
        }
    }

    /// The store is down when a device authenticates: the socket must not stay open, neither
    /// authenticated nor refused, with its client waiting for an `auth_result` that never comes.
    @Test func anAuthTheStoreCannotAnswerIsAnsweredServerErrorAndClosedWith1011() async throws {
        let storeDown = NIOLockedValueBox(false)
        let wrap: @Sendable (SQLiteProviderStore) -> any ProviderStore = { base in
            HookedStore(base: base, deviceLookup: { if storeDown.withLockedValue({ $0 }) { throw HookedStore.DiskFull() } })
        }
        try await TestServer.run(wrapStore: wrap) { server in
            let device = try await server.pair()
            storeDown.withLockedValue { $0 = true }
            let socket = server.socket()
            socket.send(.auth(Auth(token: device.token, deviceId: device.deviceID)))
            guard case .error(let error) = try await socket.next() else { throw TestFailure("expected server_error") }
            #expect(error.code == .serverError)
            #expect(try await socket.closeCode() == 1011)
        }
    }

    @Test func theHundredAndFirstPendingPairingIsRateLimited() async throws {
        // Every socket comes from 127.0.0.1: the per-address share is lifted to reach the total cap.
        try await TestServer.run(limits: ProviderLimits(maxPendingPairingsPerAddress: 1000)) { server in
            _ = try await server.pair()
            var sockets: [TestSocket] = []
            for _ in 0..<Clawline.Constants.pendingPairingCapacity {
                let socket = server.socket()
                socket.send(.pairRequest(PairRequest(deviceId: TestServer.newDeviceID(), deviceInfo: TestServer.deviceInfo)))
                sockets.append(socket)
            }
            await server.clock.waitForSleepers(atLeast: Clawline.Constants.pendingPairingCapacity)
            let late = server.socket()
            late.send(.pairRequest(PairRequest(deviceId: TestServer.newDeviceID(), deviceInfo: TestServer.deviceInfo)))
            guard case .error(let error) = try await late.next() else { throw TestFailure("expected rate_limited") }
            #expect(error.code == .rateLimited)
            #expect(try await late.closeCode() == 1008)
            let pendingSocketsWait = sockets.allSatisfy { $0.inboxIsEmpty }
            #expect(pendingSocketsWait)
        }
    }
}
