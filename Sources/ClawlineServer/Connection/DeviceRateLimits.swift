import ClawlineProtocol
import NIOConcurrencyHelpers
import WireRuntime

/// The rate-limit windows the server counts (the spec's limits are per device), keyed so that no
/// stranger can spend another device's windows, and pruned so that made-up ids cost nothing that
/// lasts:
///
/// - an authenticated socket's frames count for its device, across the device's connections;
/// - a frame before authentication counts for the device it names *as seen from the socket's
///   address*: a stranger elsewhere who knows a device's id cannot use up its `auth` window;
/// - an `auth` whose token does not verify proves nothing about the device it names, so it counts
///   apart from the device's own attempts, in a window of failures for that name from that
///   address: a stranger behind the victim's own NAT spends that window, never the victim's;
/// - one address has at most ``ProviderLimits/maxDeviceIDsPerAddress`` windows of named devices
///   (of both kinds) at once; frames naming more share one window for the address, which soon
///   hits the limit;
/// - a window idle for longer than the longest rate window is forgotten (``prune(now:)``).
final class DeviceRateLimits: Sendable {
    /// Whose windows a frame counts in.
    enum Key: Hashable, Sendable {
        /// An authenticated device's.
        case device(String)
        /// A device named before authentication, from one address: a `pair_request`, or an `auth`
        /// whose token was issued to that device.
        case named(deviceID: String, address: String)
        /// A device named by an `auth` whose token does not verify (or does not decode), from one
        /// address: failures that cannot be charged to the device itself.
        case unverified(deviceID: String, address: String)
        /// Every other frame before authentication from one address, and named devices past the cap.
        case address(String)
    }

    private struct Entry {
        var limiter = RateLimiter()
        var lastUsed: Duration
    }

    private struct State {
        var windows: [Key: Entry] = [:]
        /// How many `.named` windows each address has.
        var namedPerAddress: [String: Int] = [:]
    }

    private let state = NIOLockedValueBox(State())
    private let maxNamedPerAddress: Int
    /// How long a window is kept after its last frame: the longest of the spec's rate windows.
    static let retention = Clawline.RateLimits.all.compactMap(\.window).max() ?? .seconds(60)

    /// Windows for at most `maxDeviceIDsPerAddress` named devices per address.
    init(maxDeviceIDsPerAddress: Int) {
        maxNamedPerAddress = maxDeviceIDsPerAddress
    }

    /// The key of a frame: the authenticated device's, else the device the frame names from the
    /// socket's address (its own attempts when `proven`, failures for its name otherwise), else
    /// the address's.
    static func key(authenticated deviceID: String?, named: String?, proven: Bool = true, address: String) -> Key {
        if let deviceID { return .device(deviceID) }
        guard let named else { return .address(address) }
        return proven ? .named(deviceID: named, address: address) : .unverified(deviceID: named, address: address)
    }

    /// The address of a window kept per named device, counted against the address's cap.
    private static func namingAddress(_ key: Key) -> String? {
        switch key {
        case .named(_, let address), .unverified(_, let address): address
        case .device, .address: nil
        }
    }

    /// Runs `body` with the windows of `key` at `now`.
    func with<T>(_ key: Key, now: Duration, _ body: (inout RateLimiter) -> T) -> T {
        state.withLockedValue { state in
            var key = key
            if state.windows[key] == nil, let address = Self.namingAddress(key) {
                if state.namedPerAddress[address, default: 0] >= maxNamedPerAddress {
                    key = .address(address)
                } else {
                    state.namedPerAddress[address, default: 0] += 1
                }
            }
            var entry = state.windows[key] ?? Entry(lastUsed: now)
            entry.lastUsed = now
            defer { state.windows[key] = entry }
            return body(&entry.limiter)
        }
    }

    /// Forgets the windows with no frame within ``retention`` of `now`.
    func prune(now: Duration) {
        state.withLockedValue { state in
            for (key, entry) in state.windows where now - entry.lastUsed > Self.retention {
                state.windows[key] = nil
                if let address = Self.namingAddress(key) {
                    state.namedPerAddress[address, default: 1] -= 1
                    if state.namedPerAddress[address] == 0 { state.namedPerAddress[address] = nil }
                }
            }
        }
    }

    /// How many windows are kept.
    var count: Int { state.withLockedValue { $0.windows.count } }
}
