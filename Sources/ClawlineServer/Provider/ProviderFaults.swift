import WireRuntime

/// A deliberate breach of the contract, for proving the conformance kit (`clawline conformance`)
/// and `wire probe` against a provider that is wrong in one known way: each fault breaks one
/// rule, and a test checks that the case naming that rule fails.
///
/// Internal on purpose: only tests (`@testable import ClawlineServer`) can set one, through
/// ``ClawlineServerConfiguration/faults``; an embedder cannot.
enum ProviderFault: String, Sendable, Hashable, CaseIterable {
    // Rate limits the spec states per device.
    /// A sixth message within a second is handled like the others.
    case messageLimitUnenforced
    /// A third typing within a second is accepted.
    case typingLimitUnenforced
    /// A sixth auth for one device within a minute is answered as the others.
    case authLimitUnenforced
    /// A sixth pair_request for one device within a minute is handled as the others.
    case pairRequestLimitUnenforced
    /// The third oversize frame within 60 s is answered but does not close the socket.
    case oversizeNeverCloses

    // Rules across connections and devices, and stored state.
    /// A takeover closes the old socket without `session_replaced`.
    case takeoverWithoutSessionReplaced
    /// The replay after `auth` starts at the account's first event, whatever the cursor.
    case replayIgnoresCursor
    /// A retried client message id makes a new event and a new answer.
    case retryMakesNewEvent
    /// A client message id resent with other content is acknowledged as a retry.
    case retryWithOtherContentAccepted
    /// A user's message is echoed to the sending socket only.
    case echoOnlyToSender
    /// Pending pairing requests are not sent again to an admin that authenticates.
    case pendingRequestsNotResent
    /// A device that is not an admin may decide pairing requests.
    case membersMayDecide
    /// A denied device gets its `pair_result`, and its socket stays open.
    case denialLeavesSocketOpen
    /// An upload of another account can be downloaded.
    case downloadsAcrossAccounts
    /// An answer streaming when its device's socket closes without a takeover goes on to its final.
    case streamOutlivesItsSocket
    /// A takeover cancels the device's answer in progress instead of moving it to the new socket.
    case takeoverCancelsTheStream

    // Departures the contract allows (the kit must accept them).
    /// The pairing socket is closed by the provider (1000) after a successful `pair_result`.
    case pairingSocketClosedAfterSuccess
    /// Downloads lack `X-Content-Type-Options: nosniff` (a provider limit, not the contract's rule).
    case downloadsWithoutNosniff
    /// An `auth` over the rate limit is answered `auth_result` `{success: false, reason: "rate_limited"}`
    /// and a close with 1008, as the protocol author's provider answers it, instead of `error rate_limited`.
    case authLimitAnsweredAsResult

    // Providers the kit cannot set up on (it must say so, not blame a rule).
    /// Every decision approving a device into an account that does not exist yet is `invalid_message`.
    case newAccountsRefused

    // Answers to single frames, as the spec states them (what `wire probe` checks).
    /// `payload_too_large` answers are sent as `invalid_message`.
    case sizeAnsweredAsInvalid
    /// A frame refused with a close (a wrong `protocolVersion`, a phase's refusal) leaves the socket open.
    case refusalsNeverClose
    /// A frame over `maxFrameBytes` is closed with 1008 instead of 1009.
    case frameLimitClosesWith1008
    /// Bytes that are not JSON are answered `invalid_message`, and the socket stays open.
    case notJSONAnsweredAsInvalid
    /// A frame a phase does not allow is answered `invalid_message` instead of `auth_failed`.
    case wrongPhaseCode
    /// Every valid chat message is answered `invalid_message`.
    case refusesValidMessages

    // The protocol author's provider, where it departs from the spec (the kit must judge it).
    /// A `claimedName` of the wrong type or over 64 bytes is cleaned up (made text, cut) and the
    /// `pair_request` accepted, instead of being answered `invalid_message`.
    case claimedNameCleanedUp
    /// A wrong `protocolVersion` is answered `invalid_message`, then closed without a status code
    /// (the peer reads 1005) instead of with 1008.
    case protocolVersionClosedWithoutCode
}

/// The faults a test server runs with: none, unless a test sets some.
struct ProviderFaults: Sendable, Hashable, ExpressibleByArrayLiteral {
    private var faults: Set<ProviderFault>

    init(arrayLiteral faults: ProviderFault...) { self.faults = Set(faults) }

    /// Whether `fault` is set.
    func has(_ fault: ProviderFault) -> Bool { faults.contains(fault) }

    /// The session machine's findings on a received frame, less those a fault ignores.
    func kept(_ violations: [SessionViolation]) -> [SessionViolation] {
        guard !faults.isEmpty else { return violations }
        return violations.filter { violation in
            switch (violation.rule, violation.ruleName) {
            case (.rateLimit, "message"): return !has(.messageLimitUnenforced)
            case (.rateLimit, "typing"): return !has(.typingLimitUnenforced)
            case (.rateLimit, "auth"): return !has(.authLimitUnenforced)
            case (.rateLimit, "pair_request"): return !has(.pairRequestLimitUnenforced)
            case (.rateLimit, "oversize"): return !has(.oversizeNeverCloses)
            case (.guard, "admin_decides"): return !has(.membersMayDecide)
            case (.uniqueness, "client_message_retry"): return !has(.retryWithOtherContentAccepted)
            default: return true
            }
        }
    }

    /// The frame as this provider reads it: a `pair_request`'s `claimedName` cleaned up as the
    /// protocol author's provider does (a value that is not text made text, a long one cut to 64
    /// bytes), when ``ProviderFault/claimedNameCleanedUp`` is set.
    func cleanedUp(_ bytes: [UInt8]) -> [UInt8] {
        guard has(.claimedNameCleanedUp), case .object(var members)? = try? JSONParser.parse(bytes), members["type"] == .string("pair_request"),
            let name = members["claimedName"]
        else { return bytes }
        var text: String
        switch name {
        case .string(let string): text = string
        case .null: return bytes
        default: text = JSONWriter.string(name)
        }
        while text.utf8.count > 64 { text.removeLast() }
        members["claimedName"] = .string(text)
        return JSONWriter.bytes(.object(members))
    }

    /// Whether `violation` is an `auth` over its rate limit that this provider answers with
    /// `auth_result`, as the protocol author's provider does, instead of the contract's `error`.
    func answersAsAuthResult(_ violation: SessionViolation) -> Bool {
        has(.authLimitAnsweredAsResult) && violation.rule == .rateLimit && violation.ruleName == "auth"
    }

    /// The answer to a refused frame as a fault changes it: its code, and whether it closes.
    func answer(_ answer: ViolationAnswer) -> ViolationAnswer {
        guard !faults.isEmpty else { return answer }
        var answer = answer
        if has(.sizeAnsweredAsInvalid), answer.code == "payload_too_large" { answer.code = "invalid_message" }
        if has(.wrongPhaseCode), answer.code == "auth_failed" { answer.code = "invalid_message" }
        if has(.notJSONAnsweredAsInvalid), answer.code == nil {
            answer.code = "invalid_message"
            answer.closesConnection = false
        }
        if has(.refusalsNeverClose) { answer.closesConnection = false }
        return answer
    }
}

extension ProviderFaults {
    /// How the store judged a message, as a fault changes it: a retry taken for a new message,
    /// or a conflicting one for a retry.
    func acceptance(_ acceptance: MessageAcceptance) -> MessageAcceptance {
        switch acceptance {
        case .retry where has(.retryMakesNewEvent): return .accepted(number: nil)
        case .conflict where has(.retryWithOtherContentAccepted): return .retry(eventID: "")
        default: return acceptance
        }
    }
}
