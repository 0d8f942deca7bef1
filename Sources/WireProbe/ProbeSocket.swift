import Foundation
import WireRuntime

/// What a probe socket reports.
public enum ProbeEvent: Sendable, Hashable {
    /// A text frame from the provider.
    case text(String)
    /// The provider closed the socket (with its close code, when it sent one), or the connection ended.
    case closed(code: Int?)
}

/// A WebSocket to the provider under test, as the probe uses it.
public protocol ProbeSocket: Sendable {
    /// Sends a text frame.
    func send(_ text: String) async throws
    /// The next event, or `nil` when none came within `timeout`.
    func next(within timeout: Duration) async throws -> ProbeEvent?
    /// Closes the socket (code 1000), if it is still open.
    func close() async
}

/// Opens sockets to the provider under test.
public protocol ProbeConnector: Sendable {
    /// A new socket, open.
    func open() async throws -> any ProbeSocket
}

/// Why a probe could not run (exit status 2): the provider could not be reached, or a setup
/// did not reach its phase.
public struct ProbeSetupError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, and what to do.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// One socket under probe: its frames go through a session machine, so the probe knows the
/// phase as the spec defines it, and every value the provider hands out is kept for setups'
/// placeholders (`${pair_result.token}`).
actor ProbeSession {
    let socket: any ProbeSocket
    private(set) var machine: SessionMachine
    let tagField: String
    /// The close, once it came.
    private(set) var closeCode: Int??
    /// The last value of each `tag.field` of the frames received (scalars only).
    private(set) var captured: [String: String] = [:]

    init(socket: any ProbeSocket, engine: SessionEngine, tagField: String) {
        self.socket = socket
        machine = SessionMachine(engine: engine)
        self.tagField = tagField
    }

    var phase: String? { machine.phase }
    var isClosed: Bool { closeCode != nil }

    func send(_ text: String) async throws {
        _ = machine.observe(json: Array(text.utf8), from: .client, tagField: tagField)
        try await socket.send(text)
    }

    /// The next event; a frame received moves the session on and is captured.
    func next(within timeout: Duration) async throws -> ProbeEvent? {
        guard closeCode == nil else { return nil }
        guard let event = try await socket.next(within: timeout) else { return nil }
        switch event {
        case .closed(let code): closeCode = .some(code)
        case .text(let text):
            _ = machine.observe(json: Array(text.utf8), from: .server, tagField: tagField)
            if case .object(let members)? = try? JSONParser.parse(text), case .string(let tag)? = members[tagField] {
                for (key, value) in members {
                    switch value {
                    case .string(let string): captured["\(tag).\(key)"] = string
                    case .integer(let number): captured["\(tag).\(key)"] = String(number)
                    case .bool(let flag): captured["\(tag).\(key)"] = String(flag)
                    default: break
                    }
                }
            }
        }
        return event
    }

    func close() async { await socket.close() }

    /// The captured values (an actor's copy).
    func values() -> [String: String] { captured }
}

/// A socket that shows the provider's WebSocket pings.
public protocol PingObservingSocket: ProbeSocket {
    /// Whether a ping came within `timeout` (counting pings not yet waited for).
    func waitForPing(within timeout: Duration) async -> Bool
}

/// Opens sockets that show pings, and that may leave them unanswered.
public protocol PingObservingConnector: Sendable {
    /// A new socket, open; it answers pings with pongs when `answeringPings`.
    func open(answeringPings: Bool) async throws -> any PingObservingSocket
}
