import WireSpec

/// What a change of the session rules means for a conversation between versions: a frame that
/// used to end the connection and no longer does (or the other way round), and a phase a new peer
/// leaves only on a frame old peers never send.
extension ChangeCollector {
    /// Whether a phase lets nothing through in either direction: the connection is over.
    static func isFinal(_ phase: SessionRules.Phase?) -> Bool {
        guard let phase else { return false }
        return phase.allowedClient.isEmpty && phase.allowedServer.isEmpty
    }

    /// The transitions of `after` that change whether their frame ends the connection, compared
    /// with the transition `before` applied to the same frames. Returns the transitions it explained,
    /// so that the generic "transition added or changed" line is not repeated for them.
    mutating func compareFinality(_ before: SessionRules, _ after: SessionRules) -> Set<SessionRules.Transition> {
        var explained: Set<SessionRules.Transition> = []
        for transition in after.transitions where !before.transitions.contains(where: { Self.sameRule($0, transition) }) {
            guard let previous = Self.transition(in: before, applyingTo: transition) else { continue }
            let wasFinal = Self.isFinal(before.phase(named: previous.to))
            let isFinal = Self.isFinal(after.phase(named: transition.to))
            guard wasFinal != isFinal else { continue }
            explained.insert(transition)
            let frame = transition.on
            let receivers = frame.direction == .server ? "clients" : "servers"
            let senders = frame.direction == .server ? "servers" : "clients"
            let condition = transition.when.isEmpty ? "" : " when \(Self.conditionText(transition.when))"
            // Old senders can only send such a frame if the condition names values they knew.
            let oldSendersCanSend = conditionValuesExisted(transition.when, of: frame)
            let receiverVerdict: Verdict = wasFinal ? .breaks : .mayBreak
            let senderVerdict: Verdict = oldSendersCanSend ? .mayBreak : .compatible
            let summary =
                wasFinal
                ? "\(frame)\(condition) no longer ends the connection (phase '\(transition.to)', was '\(previous.to)'): "
                    + "old \(receivers), which treat it as final, stop where the connection goes on"
                : "\(frame)\(condition) now ends the connection (phase '\(transition.to)', was '\(previous.to)'): "
                    + "old \(receivers) wait for frames that do not come"
            let note = oldSendersCanSend ? "" : "; old \(senders) never send it"
            recordVerdicts(
                "session", "transition", .changed, summary + note, old: transitionText(previous), new: transitionText(transition),
                oldClients: frame.direction == .server ? receiverVerdict : senderVerdict,
                oldServers: frame.direction == .server ? senderVerdict : receiverVerdict, at: transition.location)
        }
        return explained
    }

    /// Phases of `after` that a peer leaves (for a phase that lets frames through) only on frames
    /// the old spec does not have: against an old peer, a new one waits there for ever.
    mutating func compareStalls(_ after: SessionRules) {
        for phase in after.phases where !Self.isFinal(phase) {
            let waysOn = after.transitions.filter { transition in
                transition.to != phase.name && !Self.isFinal(after.phase(named: transition.to))
                    && (transition.from.isEmpty || transition.from.contains(phase.name))
                    && phase.allowed(transition.on.direction).contains(transition.on.tag)
            }
            guard !waysOn.isEmpty, waysOn.allSatisfy({ old.message($0.on) == nil }) else { continue }
            let frames = waysOn.map(\.on)
            let serverFrames = frames.contains { $0.direction == .server }
            let clientFrames = frames.contains { $0.direction == .client }
            let list = frames.map { "\($0)" }.joined(separator: " or ")
            var waiting: [String] = []
            if serverFrames { waiting.append("new clients wait for \(list), which old servers never send") }
            if clientFrames { waiting.append("new servers wait for \(list), which old clients never send") }
            recordVerdicts(
                "session", "phase '\(phase.name)'", .changed,
                "left only on \(list): \(waiting.joined(separator: "; ")), so against them a connection stays in '\(phase.name)'",
                oldClients: clientFrames ? .breaks : .compatible, oldServers: serverFrames ? .breaks : .compatible, at: phase.location)
        }
    }

    /// Two transitions that say the same thing (wherever they are written).
    static func sameRule(_ lhs: SessionRules.Transition, _ rhs: SessionRules.Transition) -> Bool {
        lhs.on == rhs.on && lhs.from == rhs.from && lhs.when == rhs.when && lhs.to == rhs.to && lhs.set == rhs.set
            && lhs.closeCode == rhs.closeCode
    }

    /// The first transition of `rules` that applies to every frame `transition` applies to: the
    /// same frame, and conditions that `transition`'s conditions imply.
    static func transition(in rules: SessionRules, applyingTo transition: SessionRules.Transition) -> SessionRules.Transition? {
        rules.transitions.first { candidate in
            candidate.on == transition.on
                && (candidate.from.isEmpty || transition.from.allSatisfy(candidate.from.contains) && !transition.from.isEmpty)
                && candidate.when.allSatisfy { condition in
                    guard let narrower = transition.when.first(where: { $0.field == condition.field }) else { return false }
                    return narrower.values.allSatisfy(condition.values.contains)
                }
        }
    }

    /// Whether every value the conditions name was a value of the field's enum in the old spec
    /// (or the field is not an enum there), so an old sender could send a frame that meets them.
    private func conditionValuesExisted(_ conditions: [Condition], of frame: MessageRef) -> Bool {
        guard let message = old.message(frame) else { return false }
        let fields = message.allFields(types: old.types)
        for condition in conditions {
            guard let field = fields.first(where: { $0.name == condition.field }) else { return false }
            guard case .enumeration(_, let values) = old.resolve(field.type).type else { continue }
            let known = Set(values.values.map(\.value))
            for value in condition.values {
                if case .string(let text) = value, !known.contains(text) { return false }
            }
        }
        return true
    }
}
