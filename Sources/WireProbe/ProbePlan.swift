import WireRuntime
import WireSpec
import WireValidator

/// Every case `wire probe` runs against a provider, built from a spec alone: per client message,
/// a frame for each rule it states that breaks exactly that rule; frames not allowed in a phase;
/// frames that are not JSON or not a frame; the frame-size limit; the rate limits; and valid
/// frames generated from a seed. Rules it cannot turn into a case are listed as gaps, with why.
public struct ProbePlan: Sendable {
    /// The cases, in the order they run.
    public private(set) var cases: [ProbeCase] = []
    /// The rules no case checks, and why.
    public private(set) var gaps: [ProbeGap] = []
    /// The seed the positive cases were generated from.
    public let seed: UInt64

    /// Keeps only the cases `keep` accepts (`wire probe --only`).
    public mutating func keepCases(_ keep: (ProbeCase) -> Bool) { cases = cases.filter(keep) }

    /// The spec constant naming the largest frame a provider reads, when the spec has one.
    public static let frameLimitConstant = "maxFrameBytes"
    /// The WebSocket close code for a frame that is too big (RFC 6455, section 7.4.1).
    public static let messageTooBigCloseCode = 1009

    /// Builds the cases of `spec` for the phases the probe can reach: the initial phase, and
    /// those in `reachable` (the phases a setup reaches). `positiveCount` valid frames are made
    /// per client message allowed in a reached phase after the initial one, except the tags in
    /// `skippingPositive` (frames whose answer depends on the provider's state).
    public init(spec: ProtocolSpec, seed: UInt64, positiveCount: Int = 8, reachable: Set<String> = [], skippingPositive: [String: String] = [:]) {
        self.seed = seed
        let validator = FrameValidator(spec: spec)
        var random = ProbeRandom(seed: seed)
        let session = spec.session
        let initial = session?.initialPhase?.name ?? "connected"
        let phases = session?.phases.filter { $0.initial || reachable.contains($0.name) } ?? []
        let allowed: (SessionRules.Phase?, String) -> Bool = { phase, tag in phase.map { $0.allowedClient.contains(tag) } ?? true }
        var refresher = IdentifierRefresher(spec: spec, random: ProbeRandom(seed: seed ^ 0x5EED))

        // Each client message, in the first phase the probe reaches that allows it.
        var builder = NegativeCaseBuilder(spec: spec, validator: validator, random: ProbeRandom(seed: seed ^ 0xB0B))
        var examples: [String: JSONValue] = [:]
        for message in spec.messages(.client) {
            let phase = phases.first { allowed($0, message.tag) }?.name ?? (session == nil ? initial : nil)
            guard let base = Self.base(of: message, spec: spec, validator: validator, random: &random) else {
                gaps.append(
                    ProbeGap(name: message.tag, location: message.location, reason: "it has no valid example, and the probe could not make one"))
                continue
            }
            examples[message.tag] = base
            guard let phase else {
                let needed = session?.phases.filter { allowed($0, message.tag) }.map(\.name).joined(separator: " or ") ?? "?"
                gaps.append(ProbeGap(name: message.tag, location: message.location, reason: "it is allowed only in \(needed): give --setup for it"))
                continue
            }
            builder.build(message, base: base, phase: phase)
        }
        cases += builder.cases.map { refresher.refreshed($0, validator: validator) }
        gaps += builder.gaps

        // Frames a phase does not allow, and frames that are not frames.
        for phase in phases where !phase.allowedClient.isEmpty {
            for message in spec.messages(.client) where !phase.allowedClient.contains(message.tag) {
                guard let example = examples[message.tag], let answer = phase.answer(toClient: message.tag) else { continue }
                cases.append(
                    refresher.refreshed(
                        ProbeCase(
                            name: "\(phase.name) refuses \(message.tag)", kind: .negative, rule: "'\(message.tag)' is not allowed in \(phase.name)",
                            location: phase.location, phase: phase.name, frames: [example.text], expected: spec.resolved(answer)),
                        validator: validator))
            }
            for (label, frame) in [
                ("an array", "[1,2]"), ("an object without its tag", "{}"), ("a tag that is not a string", "{\"\(spec.tagField)\":7}"),
            ] {
                cases.append(
                    ProbeCase(
                        name: "\(phase.name) not a frame: \(label)", kind: .negative, rule: "a frame is an object with a string '\(spec.tagField)'",
                        location: phase.location, phase: phase.name, frames: [frame], expected: validator.notAFrameAnswer))
            }
        }
        let initialLocation = session?.initialPhase?.location ?? SourceLocation(file: spec.sourceFile, line: 1, column: 1)
        cases.append(
            ProbeCase(
                name: "\(initial) not JSON", kind: .negative, rule: "a frame is JSON", location: initialLocation, phase: initial,
                frames: ["{\"\(spec.tagField)\": "], expected: validator.notJSONAnswer))
        if let limit = spec.constants.first(where: { $0.name == Self.frameLimitConstant && $0.kind == .bytes }),
            case .integer(let bytes) = limit.value,
            let tag = session?.initialPhase?.allowedClient.first ?? spec.messages(.client).first?.tag, let example = examples[tag]
        {
            let padding = bytes + 1 - example.text.utf8.count - "\"probePadding\":\"\",".utf8.count
            let frame = example.setting([.key("probePadding")], to: .string(String(repeating: "a", count: max(0, padding))))
            cases.append(
                ProbeCase(
                    name: "\(initial) frame over \(Self.frameLimitConstant)", kind: .negative, rule: "a frame is at most \(bytes) bytes",
                    location: limit.location, phase: initial, frames: [frame.text],
                    expected: ViolationAnswer(code: spec.sizeErrorCode, closesConnection: true, closeCode: Self.messageTooBigCloseCode),
                    providerLimit: limit.providerLimit))
        }

        // Rate limits.
        for limit in spec.rateLimits {
            guard let answer = limit.answer.map(spec.resolved) else { continue }
            switch limit.counts {
            case .frames(let refs):
                guard let ref = refs.first(where: { $0.direction == .client }), let example = examples[ref.tag] else { continue }
                guard limit.windowMilliseconds != nil else {
                    gaps.append(
                        ProbeGap(
                            name: "rate limit \(limit.name)", location: limit.location,
                            reason: "it counts what the provider holds at once (no window), which one probe cannot fill without its state"))
                    continue
                }
                guard let phase = phases.first(where: { allowed($0, ref.tag) })?.name else {
                    gaps.append(
                        ProbeGap(
                            name: "rate limit \(limit.name)", location: limit.location, reason: "'\(ref.tag)' is sent in a phase no setup reaches"))
                    continue
                }
                let frames = refresher.series(of: example, count: limit.limit + 1, tag: ref.tag, validator: validator)
                cases.append(
                    ProbeCase(
                        name: "rate limit \(limit.name)", kind: .rateLimit,
                        rule: "at most \(limit.limit) '\(ref.tag)' frames in \(limit.windowMilliseconds ?? 0) ms",
                        location: limit.location, phase: phase, frames: frames, expected: answer))
            case .violations(let codes):
                guard
                    let sample = cases.first(where: {
                        $0.kind == .negative && $0.expected.map { codes.contains($0.code ?? "") && !$0.closesConnection } == true
                    })
                else { continue }
                let frames = (0...limit.limit).map { _ in refresher.refreshed(sample, validator: validator).frames[0] }
                cases.append(
                    ProbeCase(
                        name: "rate limit \(limit.name)", kind: .rateLimit,
                        rule: "at most \(limit.limit) answers \(codes.joined(separator: ", ")) in \(limit.windowMilliseconds ?? 0) ms",
                        location: limit.location, phase: sample.phase, frames: frames, expected: answer))
            }
        }

        // Valid frames, generated.
        var synthesizer = ValueSynthesizer(spec: spec, random: random)
        for phase in phases where !phase.initial {
            for tag in phase.allowedClient {
                guard let message = spec.messages(.client).first(where: { $0.tag == tag }) else { continue }
                if let reason = skippingPositive[tag] {
                    gaps.append(ProbeGap(name: "\(tag) valid frames", location: message.location, reason: reason))
                    continue
                }
                var made = 0
                for _ in 0..<(positiveCount * 20) where made < positiveCount {
                    guard var members = synthesizer.object(message.shape, depth: 0) else { continue }
                    members[spec.tagField] = .string(tag)
                    let frame = JSONValue.object(members)
                    guard case .checked(_, let issues) = validator.check(Array(frame.text.utf8), direction: .client), issues.errors.isEmpty else {
                        continue
                    }
                    made += 1
                    cases.append(
                        ProbeCase(
                            name: "\(tag) valid #\(made)", kind: .positive, rule: "a valid '\(tag)' is not refused", location: message.location,
                            phase: phase.name, frames: [frame.text], expected: nil))
                }
            }
        }
    }

    /// The message's first example, or a valid frame made for it.
    private static func base(of message: Message, spec: ProtocolSpec, validator: FrameValidator, random: inout ProbeRandom) -> JSONValue? {
        let valid: (JSONValue) -> Bool = { frame in
            guard case .checked(_, let issues) = validator.check(Array(frame.text.utf8), direction: .client) else { return false }
            return issues.errors.isEmpty
        }
        if let example = message.examples.first.map(JSONValue.init(spec:)), valid(example) { return example }
        var synthesizer = ValueSynthesizer(spec: spec, random: random, boundaries: false)
        defer { random = synthesizer.random }
        for _ in 0..<50 {
            guard var members = synthesizer.object(message.shape, depth: 0) else { continue }
            members[spec.tagField] = .string(message.tag)
            if valid(.object(members)) { return .object(members) }
        }
        return nil
    }
}

/// Gives each case's frame identifiers of its own: a top-level field with a prefix or a UUID
/// format (a message id, a device id) that the case did not break gets a fresh value, so no
/// case's frame looks like a retry of another's, and no two cases share a device's limits.
struct IdentifierRefresher {
    let spec: ProtocolSpec
    var random: ProbeRandom

    mutating func refreshed(_ probeCase: ProbeCase, validator: FrameValidator) -> ProbeCase {
        guard let frame = probeCase.frames.first, let parsed = try? JSONParser.parse(frame), case .object(var members) = parsed,
            case .string(let tag)? = members[spec.tagField], let message = spec.messages(.client).first(where: { $0.tag == tag })
        else { return probeCase }
        for field in message.shape.fields {
            guard case .string(let old)? = members[field.name] else { continue }
            guard let fresh = freshValue(for: field, replacing: old) else { continue }
            var trial = members
            trial[field.name] = .string(fresh)
            if outcome(.object(trial), validator) == outcome(parsed, validator) { members = trial }
        }
        var result = probeCase
        result.frames[0] = JSONValue.object(members).text
        if let id = probeCase.correlatedID { result.correlatedID = correlated(members, original: parsed, id: id) }
        return result
    }

    /// `count` frames like `example`, each with identifiers of its own but one device throughout.
    mutating func series(of example: JSONValue, count: Int, tag: String, validator: FrameValidator) -> [String] {
        guard case .object(var members) = example, let message = spec.messages(.client).first(where: { $0.tag == tag }) else {
            return Array(repeating: example.text, count: count)
        }
        var devices: [String: String] = [:]
        return (0..<count).map { _ in
            for field in message.shape.fields {
                guard case .string(let old)? = members[field.name], let fresh = freshValue(for: field, replacing: old) else { continue }
                let type = ResolvedType(field.type, constraints: field.constraints, in: spec)
                if type.constraints.format == .uuid || type.constraints.format == .uuidv4 {
                    members[field.name] = .string(devices[field.name] ?? fresh)
                    devices[field.name] = devices[field.name] ?? fresh
                } else {
                    members[field.name] = .string(fresh)
                }
            }
            return JSONValue.object(members).text
        }
    }

    private mutating func freshValue(for field: Field, replacing old: String) -> String? {
        let type = ResolvedType(field.type, constraints: field.constraints, in: spec)
        if type.constraints.format == .uuid || type.constraints.format == .uuidv4 { return random.uuid() }
        if let prefix = type.constraints.prefix, old.hasPrefix(prefix) {
            let suffix = (0..<8).map { _ in String(random.int(in: 0...35), radix: 36) }.joined()
            return prefix + "probe" + suffix
        }
        return nil
    }

    private func correlated(_ members: [String: JSONValue], original: JSONValue, id: String) -> String? {
        for (key, value) in members {
            if case .string(let text) = value, original.value(at: [.key(key)]) == .string(id) { return text }
        }
        return id
    }

    private func outcome(_ frame: JSONValue, _ validator: FrameValidator) -> [String] {
        guard case .checked(_, let issues) = validator.check(Array(frame.text.utf8), direction: .client) else { return ["?"] }
        return issues.errors.map { "\($0.rule) \($0.answer)" }
    }
}
