import WireRuntime
import WireSpec

extension ChangeCollector {
    private static let both: Set<Direction> = [.client, .server]

    // MARK: Error codes

    mutating func compareErrorCodes() {
        let group = "error codes"
        for code in new.errorCodes {
            let subject = "'\(code.code)'"
            guard let previous = old.errorCode(code.code) else {
                record(
                    group, subject, .added, "added: old peers see a code they do not know", effect: .changesBehaviour,
                    directions: Self.both, at: code.location)
                continue
            }
            if previous.httpStatus != code.httpStatus {
                record(
                    group, subject, .changed, "HTTP status changed", old: previous.httpStatus.map(String.init), new: code.httpStatus.map(String.init),
                    effect: .changesBehaviour, directions: Self.both, at: code.location)
            }
            if previous.closes != code.closes {
                record(
                    group, subject, .changed, "close behaviour changed", old: previous.closes.rawValue, new: code.closes.rawValue,
                    effect: .changesBehaviour, directions: Self.both, at: code.location)
            }
            if previous.closeCode != code.closeCode {
                record(
                    group, subject, .changed, "close code changed", old: previous.closeCode.map(String.init), new: code.closeCode.map(String.init),
                    effect: .changesBehaviour, directions: Self.both, at: code.location)
            }
            recordDescription(group, subject, old: previous.description, new: code.description, at: code.location)
        }
        for code in old.errorCodes where new.errorCode(code.code) == nil {
            record(
                group, "'\(code.code)'", .removed, "removed: old servers may still send it", effect: .changesBehaviour,
                directions: Self.both, at: code.location)
        }
    }

    // MARK: Rate limits

    mutating func compareRateLimits() {
        let group = "rate limits"
        for limit in new.rateLimits {
            let subject = "'\(limit.name)'"
            let directions = countedDirections(limit)
            guard let previous = old.rateLimits.first(where: { $0.name == limit.name }) else {
                record(group, subject, .added, "added", new: limitText(limit), effect: .tightens, directions: directions, at: limit.location)
                continue
            }
            if previous.limit != limit.limit || previous.windowMilliseconds != limit.windowMilliseconds {
                // A rate per millisecond decides: fewer events per window length tightens.
                let effect: Effect
                if let before = previous.windowMilliseconds, let after = limit.windowMilliseconds {
                    let oldRate = Double(previous.limit) / Double(before)
                    let newRate = Double(limit.limit) / Double(after)
                    effect = newRate < oldRate ? .tightens : newRate > oldRate ? .loosens : .changesBehaviour
                } else if previous.windowMilliseconds == nil && limit.windowMilliseconds == nil {
                    effect = limit.limit < previous.limit ? .tightens : .loosens
                } else {
                    effect = .replaces
                }
                record(
                    group, subject, .changed, effect == .tightens ? "tightened" : effect == .loosens ? "loosened" : "changed",
                    old: limitText(previous), new: limitText(limit), effect: effect, directions: directions, at: limit.location)
            }
            if previous.counts != limit.counts {
                record(group, subject, .changed, "what it counts changed", effect: .replaces, directions: directions, at: limit.location)
            }
            if previous.scope != limit.scope {
                record(
                    group, subject, .changed, "scope changed", old: previous.scope.rawValue, new: limit.scope.rawValue, effect: .changesBehaviour,
                    directions: directions, at: limit.location)
            }
            if !sameAnswer(previous.answer, limit.answer) {
                record(
                    group, subject, .changed, "answer changed", old: previous.answer.map(answerText), new: limit.answer.map(answerText),
                    effect: .changesBehaviour, directions: directions, at: limit.location)
            }
        }
        for limit in old.rateLimits where !new.rateLimits.contains(where: { $0.name == limit.name }) {
            record(
                group, "'\(limit.name)'", .removed, "removed", old: limitText(limit), effect: .loosens,
                directions: countedDirections(limit), at: limit.location)
        }
    }

    private func countedDirections(_ limit: RateLimit) -> Set<Direction> {
        switch limit.counts {
        case .frames(let refs): return Set(refs.map(\.direction))
        case .violations: return [.client]
        }
    }

    private func limitText(_ limit: RateLimit) -> String {
        "\(limit.limit)" + (limit.windowMilliseconds.map { " per \(DurationText.from(milliseconds: $0))" } ?? " at once") + " per \(limit.scope)"
    }

    // MARK: Endpoints

    mutating func compareEndpoints() {
        for endpoint in new.endpoints {
            let group = "endpoint \(endpoint.name)"
            guard let previous = old.endpoints.first(where: { $0.name == endpoint.name }) else {
                record(
                    group, "the endpoint", .added, "added: old servers do not serve it", new: "\(endpoint.method) \(endpoint.path)",
                    effect: .loosens, directions: [.client], at: endpoint.location)
                continue
            }
            if previous.method != endpoint.method || previous.path != endpoint.path {
                record(
                    group, "method and path", .changed, "changed", old: "\(previous.method) \(previous.path)",
                    new: "\(endpoint.method) \(endpoint.path)",
                    effect: .replaces, directions: [.client], at: endpoint.location)
            }
            if previous.auth != endpoint.auth {
                record(
                    group, "authentication", .changed, "changed", old: previous.auth.rawValue, new: endpoint.auth.rawValue,
                    effect: endpoint.auth == .bearer ? .tightens : .loosens, directions: [.client], at: endpoint.location)
            }
            compareShape(
                ObjectShape(fields: previous.parameters), ObjectShape(fields: endpoint.parameters), group: group, directions: [.client],
                at: endpoint.location)
            compareShape(
                ObjectShape(fields: previous.query), ObjectShape(fields: endpoint.query), group: group + " query", directions: [.client],
                at: endpoint.location)
            if previous.request != endpoint.request {
                record(group, "request body", .changed, "changed", effect: .replaces, directions: [.client], at: endpoint.location)
            }
            if previous.response != endpoint.response || previous.errorBody != endpoint.errorBody {
                record(group, "response", .changed, "changed", effect: .replaces, directions: [.server], at: endpoint.location)
            }
            for code in endpoint.errors where !previous.errors.contains(code) {
                record(
                    group, "error '\(code)'", .added, "added to its answers", effect: .changesBehaviour, directions: [.server], at: endpoint.location)
            }
            for code in previous.errors where !endpoint.errors.contains(code) {
                record(group, "error '\(code)'", .removed, "no longer among its answers", effect: .none, directions: [], at: endpoint.location)
            }
            recordDescription(group, "the endpoint", old: previous.description, new: endpoint.description, at: endpoint.location)
        }
        for endpoint in old.endpoints where !new.endpoints.contains(where: { $0.name == endpoint.name }) {
            record(
                "endpoint \(endpoint.name)", "the endpoint", .removed, "removed: old clients call it in vain",
                old: "\(endpoint.method) \(endpoint.path)",
                effect: .tightens, directions: [.client], at: endpoint.location)
        }
    }

    // MARK: Constants

    mutating func compareConstants() {
        let group = "constants"
        for constant in new.constants {
            guard let previous = old.constants.first(where: { $0.name == constant.name }) else {
                record(group, "'\(constant.name)'", .added, "added", new: constant.written, effect: .none, directions: [], at: constant.location)
                continue
            }
            if previous.value != constant.value || previous.kind != constant.kind {
                record(
                    group, "'\(constant.name)'", .changed, "value changed", old: previous.written, new: constant.written,
                    effect: .changesBehaviour, directions: Self.both, at: constant.location)
            }
            if previous.providerLimit != constant.providerLimit {
                let (old, new) =
                    previous.providerLimit ? ("a provider limit", "a rule of the contract") : ("a rule of the contract", "a provider limit")
                record(
                    group, "'\(constant.name)'", .changed, "now \(new)", old: old, new: new, effect: .changesBehaviour, directions: Self.both,
                    at: constant.location)
            }
            recordDescription(group, "'\(constant.name)'", old: previous.description, new: constant.description, at: constant.location)
        }
        for constant in old.constants where !new.constants.contains(where: { $0.name == constant.name }) {
            record(group, "'\(constant.name)'", .removed, "removed", old: constant.written, effect: .none, directions: [], at: constant.location)
        }
    }

    // MARK: Session rules

    mutating func compareSession() {
        let before = old.session ?? SessionRules()
        let after = new.session ?? SessionRules()
        let group = "session"
        for phase in after.phases {
            guard let previous = before.phase(named: phase.name) else {
                record(group, "phase '\(phase.name)'", .added, "added", effect: .changesBehaviour, directions: Self.both, at: phase.location)
                continue
            }
            for direction in Direction.allCases {
                let was = previous.allowed(direction)
                let now = phase.allowed(direction)
                for tag in now where !was.contains(tag) {
                    // A new server frame that old clients ignore is reported (as harmless) with the message.
                    if direction == .server, old.unknownServerFrames == .ignore, old.message(MessageRef(direction: .server, tag: tag)) == nil {
                        continue
                    }
                    record(
                        group, "phase '\(phase.name)'", .changed, "now allows \(direction.rawValue) \(tag)", effect: .loosens,
                        directions: [direction], at: phase.location)
                }
                for tag in was where !now.contains(tag) {
                    record(
                        group, "phase '\(phase.name)'", .changed, "no longer allows \(direction.rawValue) \(tag)", effect: .tightens,
                        directions: [direction], at: phase.location)
                }
            }
            if !sameAnswer(previous.otherwise, phase.otherwise) {
                record(
                    group, "phase '\(phase.name)'", .changed, "answer to a frame not allowed changed", old: previous.otherwise.map(answerText),
                    new: phase.otherwise.map(answerText), effect: .changesBehaviour, directions: Self.both, at: phase.location)
            }
            // A client message the new spec no longer has is reported as removed, not as a changed answer.
            let clientTags = Set(new.messages(.client).map(\.tag))
            for tag in Set(previous.otherwiseFor.map(\.tag) + phase.otherwiseFor.map(\.tag)).sorted() where clientTags.contains(tag) {
                let old = previous.otherwiseFor.first { $0.tag == tag }?.answer
                let new = phase.otherwiseFor.first { $0.tag == tag }?.answer
                guard !sameAnswer(old ?? previous.otherwise, new ?? phase.otherwise) else { continue }
                record(
                    group, "phase '\(phase.name)'", .changed, "answer to client \(tag) when not allowed changed",
                    old: (old ?? previous.otherwise).map(answerText), new: (new ?? phase.otherwise).map(answerText), effect: .changesBehaviour,
                    directions: Self.both, at: phase.location)
            }
        }
        for phase in before.phases where after.phase(named: phase.name) == nil {
            record(group, "phase '\(phase.name)'", .removed, "removed", effect: .changesBehaviour, directions: Self.both, at: phase.location)
        }
        let explained = compareFinality(before, after)
        compareStalls(after)
        let oldTransitions = before.transitions.map(transitionText)
        let newTransitions = after.transitions.map(transitionText)
        if oldTransitions != newTransitions {
            // A transition on a frame the other version does not have changes nothing between the two:
            // that version's peers never send or expect the frame (its addition or removal is reported with the message).
            for (transition, text) in zip(after.transitions, newTransitions) where !oldTransitions.contains(text) && !explained.contains(transition) {
                let newFrame = old.message(transition.on) == nil
                record(
                    group, "transition", .added, newFrame ? "added for a new frame" : "added or changed", new: text,
                    effect: newFrame ? .none : .changesBehaviour, directions: newFrame ? [] : Self.both, at: transition.location)
            }
            for (transition, text) in zip(before.transitions, oldTransitions) where !newTransitions.contains(text) {
                let goneFrame = new.message(transition.on) == nil
                record(
                    group, "transition", .removed, goneFrame ? "removed with its frame" : "removed or changed", old: text,
                    effect: goneFrame ? .none : .changesBehaviour, directions: goneFrame ? [] : Self.both, at: transition.location)
            }
        }
        compareRuleSet(
            "guard", before.guards, after.guards, name: \.name, frame: \.frame, location: \.location,
            text: { "\($0.frame) only while \($0.requires)" })
        compareRuleSet(
            "correlation", before.correlations, after.correlations, name: \.name, frame: \.frame, location: \.location,
            text: { "\($0.frame).\($0.field) answers \($0.answers).\($0.answersField)" })
        for rule in after.correlations {
            guard let previous = before.correlations.first(where: { $0.name == rule.name }), previous.scope != rule.scope else { continue }
            // Answering frames from replaced connections too accepts more of the frame's sender, as a removed rule does.
            record(
                "session", "correlation '\(rule.name)'", .changed, "scope changed", old: previous.scope.rawValue, new: rule.scope.rawValue,
                effect: rule.scope == .peer ? .loosens : .tightens, directions: [rule.frame.direction], at: rule.location)
        }
        compareRuleSet(
            "uniqueness rule", before.uniqueness, after.uniqueness, name: \.name, frame: \.frame, location: \.location,
            text: { rule in
                "\(rule.frame) key \(rule.key); same \(rule.sameFields.joined(separator: ", ")) (\(rule.comparison.rawValue)); "
                    + "grows \(rule.grows.joined(separator: ", ")); final \(Self.conditionText(rule.final))"
            })
        compareRuleSet(
            "run", before.runs, after.runs, name: \.name, frame: \.frame, location: \.location,
            text: { "after \($0.after) when \(Self.conditionText($0.when)): \($0.count) \($0.frame) frames (\(Self.conditionText($0.each)))" })
    }

    /// Named session rules: an added rule tightens what its frame's sender may do, a removed one loosens it.
    private mutating func compareRuleSet<T>(
        _ kind: String, _ before: [T], _ after: [T], name: KeyPath<T, String>, frame: KeyPath<T, MessageRef>, location: KeyPath<T, SourceLocation>,
        text: (T) -> String
    ) {
        for rule in after {
            let subject = "\(kind) '\(rule[keyPath: name])'"
            let directions: Set<Direction> = [rule[keyPath: frame].direction]
            guard let previous = before.first(where: { $0[keyPath: name] == rule[keyPath: name] }) else {
                // A rule on a frame the old version lacks binds no old peer.
                let newFrame = old.message(rule[keyPath: frame]) == nil
                record(
                    "session", subject, .added, newFrame ? "added for a new frame" : "added", new: text(rule), effect: newFrame ? .none : .tightens,
                    directions: newFrame ? [] : directions, at: rule[keyPath: location])
                continue
            }
            if text(previous) != text(rule) {
                record(
                    "session", subject, .changed, "changed", old: text(previous), new: text(rule), effect: .replaces, directions: directions,
                    at: rule[keyPath: location])
            }
        }
        for rule in before where !after.contains(where: { $0[keyPath: name] == rule[keyPath: name] }) {
            // A rule whose frame is gone goes with it; the frame's removal is what old peers notice.
            let goneFrame = new.message(rule[keyPath: frame]) == nil
            record(
                "session", "\(kind) '\(rule[keyPath: name])'", .removed, goneFrame ? "removed with its frame" : "removed", old: text(rule),
                effect: goneFrame ? .none : .loosens, directions: goneFrame ? [] : [rule[keyPath: frame].direction], at: rule[keyPath: location])
        }
    }

    func transitionText(_ transition: SessionRules.Transition) -> String {
        var text = "after \(transition.on)"
        if !transition.from.isEmpty { text += " in " + transition.from.joined(separator: " or ") }
        if !transition.when.isEmpty { text += " when \(Self.conditionText(transition.when))" }
        text += " -> \(transition.to)"
        if !transition.set.isEmpty { text += " setting " + transition.set.map { "\($0.flag) from \($0.field)" }.joined(separator: ", ") }
        return text
    }
}
