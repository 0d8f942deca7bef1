import Foundation
import WireRuntime

/// How the probe brings a socket to a phase after the initial one.
public protocol ProbeSetup: Sendable {
    /// The phases this setup reaches.
    var phases: Set<String> { get }
    /// Opens sockets with `context` until one is in `phase`, as identity number `identity` (each
    /// new identity is, say, a new device with limits of its own); returns that socket.
    func reach(_ phase: String, identity: Int, context: ProbeSetupContext) async throws -> ProbeSetupContext.Socket
    /// Runs once, before the first case: whatever the setup needs that a case could take first
    /// (Clawline's first paired device becomes the admin, so the probe pairs its own before any
    /// case sends a `pair_request`). A ``ProbeSetupError`` makes every case of the setup's phases
    /// a setup failure; the initial phase's cases still run.
    func prepare(context: ProbeSetupContext) async throws
    /// Deals with what a failed case's frames may have left on the provider (a broken frame the
    /// provider accepted: a pairing request now pending, say) so that later cases are not
    /// disturbed; returns what it did, for the report, or `nil` when there was nothing to do.
    func cleanUp(after probeCase: ProbeCase) async -> String?
}

extension ProbeSetup {
    /// Nothing to prepare.
    public func prepare(context: ProbeSetupContext) async throws {}
    /// Nothing to clean up.
    public func cleanUp(after probeCase: ProbeCase) async -> String? { nil }
}

/// What a setup may do: open sockets whose frames the probe follows.
public struct ProbeSetupContext: Sendable {
    /// A socket a setup opened; the probe goes on with it.
    public struct Socket: Sendable {
        let session: ProbeSession
    }

    let open: @Sendable () async throws -> Socket
    /// How long a setup waits for the provider's answer.
    public let timeout: Duration
}

/// `--setup PHASE=FILE.jsonl`: the frames that reach a phase, one JSON frame per line, sent in
/// order. After each frame the probe waits until the session changes phase or the provider closes
/// the socket. A line `{"$reconnect": true}` opens a new socket. Placeholders in a line:
/// `${uuid:NAME}`, a fresh UUID per identity; `${TAG.FIELD}`, the field of the last `TAG` frame
/// the provider sent (`${pair_result.token}`).
public struct ScriptSetup: ProbeSetup {
    /// The phase the script reaches.
    public let phase: String
    /// The lines, as read.
    public let lines: [String]
    /// The file, for messages.
    public let file: String

    /// A script reaching `phase`.
    public init(phase: String, lines: [String], file: String) {
        self.phase = phase
        self.lines = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        self.file = file
    }

    public var phases: Set<String> { [phase] }

    public func reach(_ phase: String, identity: Int, context: ProbeSetupContext) async throws -> ProbeSetupContext.Socket {
        var uuids: [String: String] = [:]
        var captured: [String: String] = [:]
        var socket = try await context.open()
        for (number, line) in lines.enumerated() {
            let place = "\(file):\(number + 1)"
            if line.contains("\"$reconnect\"") {
                captured.merge(await socket.session.values()) { $1 }
                await socket.session.close()
                socket = try await context.open()
                continue
            }
            let text = try Self.substitute(line, uuids: &uuids, captured: captured.merging(await socket.session.values()) { $1 }, place: place)
            let before = await socket.session.phase
            try await socket.session.send(text)
            let clock = ContinuousClock()
            let deadline = clock.now + context.timeout
            while await socket.session.phase == before, await !socket.session.isClosed {
                let left = deadline - clock.now
                guard left > .zero, try await socket.session.next(within: left) != nil else {
                    throw ProbeSetupError("\(place): no answer moved the session on from \(before ?? "?") within \(context.timeout)")
                }
            }
        }
        let reached = await socket.session.phase
        guard reached == phase else {
            throw ProbeSetupError("\(file): the script ends in phase \(reached ?? "?"), not \(phase)")
        }
        return socket
    }

    /// `line` with its placeholders replaced.
    static func substitute(_ line: String, uuids: inout [String: String], captured: [String: String], place: String) throws -> String {
        var result = ""
        var rest = Substring(line)
        while let start = rest.range(of: "${") {
            result += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                throw ProbeSetupError("\(place): a placeholder is not closed with '}'")
            }
            let name = String(rest[start.upperBound..<end])
            if name.hasPrefix("uuid:") {
                let key = String(name.dropFirst(5))
                let value = uuids[key] ?? UUID().uuidString.lowercased()
                uuids[key] = value
                result += value
            } else if let value = captured[name] {
                result += value
            } else {
                throw ProbeSetupError("\(place): ${\(name)} names nothing the provider sent so far")
            }
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }
}
