import Foundation
import NIOConcurrencyHelpers
import WireProbe
import WireRuntime

/// A broken provider as the probe sees it: the reference server's answers, altered on their way
/// to the probe (a code renamed, an error dropped or added, a close kept back or given another
/// code). Each fault breaks one rule the spec states, and a probe case names that rule.
enum ObservedFault: String, CaseIterable, Sendable {
    /// Size violations answered `invalid_message` instead of `payload_too_large`.
    case sizeAnsweredAsInvalid
    /// Never closes: a wrong `protocolVersion` leaves the socket open.
    case neverCloses
    /// A frame over the frame limit is closed with 1008, not 1009.
    case oversizeFrameClosedWith1008
    /// The typing limit is not enforced: its `rate_limited` never comes.
    case typingLimitNotEnforced
    /// A valid message is answered `invalid_message` after its `ack`.
    case refusesValidMessages
    /// Bytes that are not JSON get an `error` before the close the spec says is silent.
    case answersNotJSON
    /// A chat frame before `auth` is answered `invalid_message`, not `auth_failed`.
    case wrongPhaseCode
    /// Rejected fields are accepted: `invalid_message` never comes for them.
    case ignoresRejectedFields
    /// A broken `pair_decision` closes the socket, which the spec keeps open.
    case closesOnBadDecision
    /// The message limit answered `payload_too_large`, not `rate_limited`.
    case messageLimitWrongCode
    /// The frame past the `auth` limit is not refused, so no `rate_limited`.
    case authLimitNotEnforced

    /// The probe case that must fail, by name.
    var failingCase: String {
        switch self {
        case .sizeAnsweredAsInvalid: return "message.content maxBytes"
        case .neverCloses: return "pair_request.protocolVersion const"
        case .oversizeFrameClosedWith1008: return "unauthenticated frame over maxFrameBytes"
        case .typingLimitNotEnforced: return "rate limit typing"
        case .refusesValidMessages: return "message valid #1"
        case .answersNotJSON: return "unauthenticated not JSON"
        case .wrongPhaseCode: return "unauthenticated refuses message"
        case .ignoresRejectedFields: return "typing.role rejected"
        case .closesOnBadDecision: return "pair_decision.approve type"
        case .messageLimitWrongCode: return "rate limit message"
        case .authLimitNotEnforced: return "rate limit auth"
        }
    }
}

/// Opens the real server's sockets and alters what they deliver as `fault` says.
struct FaultyConnector: ProbeConnector {
    let base: any ProbeConnector
    let fault: ObservedFault

    func open() async throws -> any ProbeSocket { FaultySocket(base: try await base.open(), fault: fault) }
}

final class FaultySocket: ProbeSocket {
    private let base: any ProbeSocket
    private let fault: ObservedFault
    /// Events the fault adds, delivered before the next real one.
    private let state = NIOLockedValueBox([ProbeEvent]())

    init(base: any ProbeSocket, fault: ObservedFault) {
        self.base = base
        self.fault = fault
    }

    func send(_ text: String) async throws { try await base.send(text) }

    func close() async { await base.close() }

    func next(within timeout: Duration) async throws -> ProbeEvent? {
        if let queued = state.withLockedValue({ $0.isEmpty ? nil : $0.removeFirst() }) { return queued }
        while true {
            guard let event = try await base.next(within: timeout) else { return nil }
            if let altered = alter(event) { return altered }
        }
    }

    private static func error(_ code: String) -> ProbeEvent {
        .text(JSONWriter.string(["type": "error", "code": .string(code), "message": "fault"]))
    }

    /// The event as the broken provider would send it; `nil` drops it.
    private func alter(_ event: ProbeEvent) -> ProbeEvent? {
        let members: [String: JSONValue]
        if case .text(let text) = event, case .object(let parsed)? = try? JSONParser.parse(text) { members = parsed } else { members = [:] }
        let code = members["code"].flatMap { if case .string(let code) = $0 { return code } else { return nil } }
        switch (fault, event) {
        case (.sizeAnsweredAsInvalid, _) where code == "payload_too_large": return Self.error("invalid_message")
        case (.neverCloses, .closed): return nil
        case (.oversizeFrameClosedWith1008, .closed(1009)): return .closed(code: 1008)
        case (.typingLimitNotEnforced, _) where code == "rate_limited": return nil
        case (.refusesValidMessages, _) where members["type"] == "ack":
            state.withLockedValue { $0.append(Self.error("invalid_message")) }
            return event
        case (.answersNotJSON, .closed(1002)):
            state.withLockedValue { $0.append(.closed(code: 1002)) }
            return Self.error("invalid_message")
        case (.wrongPhaseCode, _) where code == "auth_failed": return Self.error("invalid_message")
        case (.ignoresRejectedFields, _) where code == "invalid_message": return nil
        case (.closesOnBadDecision, _) where code == "invalid_message":
            state.withLockedValue { $0.append(.closed(code: 1008)) }
            return event
        case (.messageLimitWrongCode, _) where code == "rate_limited": return Self.error("payload_too_large")
        case (.authLimitNotEnforced, _) where code == "rate_limited": return nil
        default: return event
        }
    }
}
