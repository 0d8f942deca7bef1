import ClawlineProtocol
import Foundation
import NIOConcurrencyHelpers
import Testing
import WireTestSupport

@testable import ClawlineServer

/// The maintenance's look at the connected devices: every one only when the store's devices
/// revision moved, otherwise only those that authenticated since its last look.
@Suite struct MaintenanceTests {
    /// What the maintenance looked up, lookup by lookup.
    final class Lookups: Sendable {
        private let seen = NIOLockedValueBox<[[String]]>([])
        /// Signalled after each lookup recorded.
        private let recorded = ChangeSignal()
        func record(_ deviceIDs: [String]) {
            seen.withLockedValue { $0.append(deviceIDs.sorted()) }
            recorded.signal()
        }
        var all: [[String]] { seen.withLockedValue { $0 } }
        func clear() { seen.withLockedValue { $0.removeAll() } }

        /// Waits until `condition` holds for the lookups recorded, checked now and after each one;
        /// false after `timeout` in real time (a guard against a hung test).
        func wait(timeout: Duration = .seconds(60), until condition: ([[String]]) -> Bool) async -> Bool {
            await recorded.wait(timeout: timeout) { condition(self.all) }
        }
    }

    @Test func connectedDevicesAreLookedUpAgainOnlyWhenADeviceChanged() async throws {
        let lookups = Lookups()
        try await TestServer.run(wrapStore: { HookedStore(base: $0, devicesLookedUp: { lookups.record($0) }) }) { server in
            let admin = try await server.pair()
            let (adminSocket, _) = try await server.connect(admin)
            let member = try await server.approveMember(TestServer.newDeviceID(), admin: admin, adminSocket: adminSocket)
            let (memberSocket, _) = try await server.connect(member)
            let both = [admin.deviceID.rawValue, member.deviceID.rawValue].sorted()
            // The member is looked up once it has authenticated (alone, or with the admin if the
            // approval's change of the revision was seen after it connected).
            #expect(await lookups.wait { $0.contains { $0.contains(member.deviceID.rawValue) } })
            lookups.clear()
            // Nothing changes: the next looks (every 50 ms here) look up no device.
            #expect(await lookups.wait { $0.count >= 3 })
            let quiet = lookups.all
            #expect(quiet.allSatisfy { $0.isEmpty }, "looked up \(quiet) with no device changed")

            // A revocation from another process moves the revision: both are looked up, and the
            // revoked device's socket is closed.
            var record = try #require(try await server.store.device(member.deviceID.rawValue))
            record.status = .revoked
            try await server.store.save(record)
            guard case .error(let error) = try await memberSocket.next() else { throw TestFailure("expected token_revoked") }
            #expect(error.code == .tokenRevoked)
            #expect(lookups.all.contains(both), "every connected device was looked up after the change")

            // A device that authenticates is looked up once, alone.
            lookups.clear()
            let (again, _) = try await server.connect(admin)
            #expect(await lookups.wait { $0.contains([admin.deviceID.rawValue]) })
            withExtendedLifetime(again) {}
        }
    }

    @Test func aStoreThatCannotTellHasEveryConnectedDeviceLookedUpOnEachLook() async throws {
        let lookups = Lookups()
        let store: @Sendable (SQLiteProviderStore) -> any ProviderStore = {
            HookedStore(base: $0, devicesLookedUp: { lookups.record($0) }, tellsDeviceChanges: false)
        }
        try await TestServer.run(wrapStore: store) { server in
            let admin = try await server.pair()
            let (socket, _) = try await server.connect(admin)
            #expect(await lookups.wait { $0.filter { $0 == [admin.deviceID.rawValue] }.count >= 3 })
            withExtendedLifetime(socket) {}
        }
    }
}
