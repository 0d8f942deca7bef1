/// The state of one connection under a protocol's session rules: its phase, its flags, the values
/// earlier frames carried, the run in progress and its rate-limit windows.
///
/// Feed it every frame of the connection, in both directions and in the order they were sent or
/// received; each call returns the rules the frame breaks. A server uses the answers to decide
/// what to send and whether to close, a client checks what it is about to send, and `wire validate`
/// checks a captured session. The machine only judges: it never drops a frame, and a frame that
/// breaks a rule still moves the session on (its transition applies and the values it carries are
/// remembered), so one bad frame does not make every later frame a violation.
///
/// Time comes from the clock given at creation, or explicitly with each frame (captured
/// timestamps); tests pass a manual clock.
public struct SessionMachine: Sendable {
    private static let seenTable = 0, fingerprintTable = 1, finalizedTable = 2, grownLengthTable = 3, grownHashTable = 4

    /// The rules and limits, shared by every machine of a protocol.
    public let engine: SessionEngine
    private let now: @Sendable () -> Duration
    private var phaseIndex: Int?
    private var flags = FlagSet()
    /// Hashes of values earlier frames carried, for correlations and uniqueness rules.
    private var memory = SessionMemory()
    /// The run in progress: its index and how many of its frames are still to come.
    @usableFromInline var run: (index: Int, remaining: Int)?
    /// The windows of the rate limits this connection counts on its own.
    private var rateLimits = RateLimiter()
    private var saidNoTimestamps = false

    /// A machine at the start of a connection, reading time from `clock`, counted from now.
    ///
    /// Machines that share a ``RateLimiter`` (the connections of one device) need one time base:
    /// give them the same `now` with ``init(engine:now:)`` instead.
    public init<C: Clock<Duration>>(engine: SessionEngine, clock: C) {
        let start = clock.now
        self.init(engine: engine, now: { start.duration(to: clock.now) })
    }

    /// A machine at the start of a connection, reading time from `now`: the time since an origin
    /// shared by every machine whose windows are compared (a server's start, say).
    public init(engine: SessionEngine, now: @escaping @Sendable () -> Duration) {
        self.engine = engine
        self.now = now
        phaseIndex = engine.initialPhase
    }

    /// A machine at the start of a connection, reading time from the continuous clock.
    public init(engine: SessionEngine) {
        self.init(engine: engine, clock: ContinuousClock())
    }

    /// The phase the connection is in (`nil` when the rules have no phases).
    public var phase: String? { phaseIndex.map { engine.rules.phases[$0].name } }

    /// A flag's value: `nil` while no frame has set it (or when the rules do not declare it).
    public func flag(_ name: String) -> Bool? {
        engine.rules.flags.firstIndex(of: name).flatMap(flags.value)
    }

    /// The WebSocket close code of the last transition that ends the connection, if one has:
    /// the sender of that frame closes with it.
    public private(set) var closeCode: Int?

    // MARK: Observing frames

    /// Checks a generated frame and moves the session on, at the machine clock's time, counting
    /// its rate limits in the machine's own windows. `answeredCodes` are the error codes of the
    /// frame's own answer (counted by limits on violations, such as oversize frames); a frame with
    /// any is not checked against what it answers or repeats. Frames of unknown types break no
    /// session rule.
    public mutating func observe<Frame: WireFrame>(_ frame: Frame, answeredCodes: [String] = []) -> [SessionViolation] {
        withOwnLimiter { machine, limiter in machine.observe(frame, answeredCodes: answeredCodes, rateLimits: &limiter) }
    }

    /// Checks a generated frame as ``observe(_:answeredCodes:)`` does, counting its rate limits in
    /// `rateLimits` (a server's windows for the device, shared by the device's connections).
    public mutating func observe<Frame: WireFrame>(
        _ frame: Frame, answeredCodes: [String] = [], rateLimits: inout RateLimiter
    )
        -> [SessionViolation]
    {
        guard Frame.knownTags.contains(frame.tag) else { return [] }
        return observe(json: frame.encoded(), from: Frame.direction, answeredCodes: answeredCodes, rateLimits: &rateLimits)
    }

    /// Checks a frame received or about to be sent as JSON bytes, at the machine clock's time,
    /// counting its rate limits in the machine's own windows.
    public mutating func observe(
        json bytes: some Collection<UInt8>, from direction: FrameDirection, tagField: String = "type", answeredCodes: [String] = []
    ) -> [SessionViolation] {
        withOwnLimiter { machine, limiter in
            machine.observe(json: bytes, from: direction, tagField: tagField, answeredCodes: answeredCodes, rateLimits: &limiter)
        }
    }

    /// Checks a frame received or about to be sent as JSON bytes, at the machine clock's time,
    /// counting its rate limits in `rateLimits`. Bytes that are not a JSON object with a string
    /// tag, and frames no rule names, break no session rule (the frame's own decoding reports them).
    public mutating func observe(
        json bytes: some Collection<UInt8>, from direction: FrameDirection, tagField: String = "type", answeredCodes: [String] = [],
        rateLimits: inout RateLimiter
    ) -> [SessionViolation] {
        var tape = JSONTape()
        guard (try? tape.parse(bytes)) != nil, tape.kind(0) == .object, let tagIndex = tape.member(of: 0, key: tagField),
            tape.kind(tagIndex) == .string
        else { return [] }
        let id = engine.messageID(for: FrameKey(direction, tape.string(tagIndex)))
        let time = WindowPlan.milliseconds(now())
        return tape.withView { view in
            check(SessionFrame(message: id, tape: view, object: 0), answeredCodes: answeredCodes, at: time, limiter: &rateLimits)
        }
    }

    /// Checks a frame parsed once for many machines (with this machine's engine), at the machine
    /// clock's time, counting its rate limits in the machine's own windows.
    public mutating func observe(parsed: ParsedFrame, answeredCodes: [String] = []) -> [SessionViolation] {
        guard let tape = parsed.tape, let message = parsed.message else { return [] }
        let time = WindowPlan.milliseconds(now())
        return withOwnLimiter { machine, limiter in
            tape.withView { view in
                machine.check(SessionFrame(message: message, tape: view, object: 0), answeredCodes: answeredCodes, at: time, limiter: &limiter)
            }
        }
    }

    /// Checks a frame on a tape and moves the session on, counting its rate limits in the
    /// machine's own windows. `milliseconds` is the frame's time since any fixed origin (a
    /// capture's timestamps, any finite value); `nil` when it is not known, and then windowed
    /// rate limits are not checked.
    @_spi(Generated) public mutating func observe(
        _ frame: SessionFrame, answeredCodes: [String] = [], atMilliseconds milliseconds: Double?
    )
        -> [SessionViolation]
    {
        withOwnLimiter { machine, limiter in machine.check(frame, answeredCodes: answeredCodes, at: milliseconds, limiter: &limiter) }
    }

    /// Runs `body` with the machine's own rate-limit windows.
    private mutating func withOwnLimiter(_ body: (inout SessionMachine, inout RateLimiter) -> [SessionViolation]) -> [SessionViolation] {
        // Swapped out and back: no reference to the windows is counted.
        var limiter = RateLimiter()
        swap(&limiter, &rateLimits)
        defer { swap(&limiter, &rateLimits) }
        return body(&self, &limiter)
    }

    private mutating func check(
        _ frame: SessionFrame, answeredCodes: [String], at time: Double?, limiter: inout RateLimiter
    )
        -> [SessionViolation]
    {
        var violations: [SessionViolation] = []
        let id = frame.message.index
        // Static, with what it reads passed in: a method that does not mutate, called here, copied
        // the whole machine (129 bytes) for every frame.
        Self.checkPhase(id, in: phaseIndex, of: engine, into: &violations)
        checkRun(frame, into: &violations)
        // The engine (which the machine holds) keeps the message's rules: borrowed, not counted.
        engine.borrowedMessageRules[id]._withUnsafeGuaranteedRef { rules in
            for plan in rules.guards where flags.value(plan.flagIndex) == false {
                let rule = plan.rule
                violations.append(
                    SessionViolation(
                        rule: .guard, ruleName: rule.name, code: rule.otherwise?.code ?? rule.name, answer: rule.otherwise,
                        message: "only allowed while '\(rule.requiredFlag)' is set (\(rule.name))"))
            }
            // A frame with errors is not answered by its receiver, so what it must answer is not checked.
            let valid = answeredCodes.isEmpty
            checkCorrelations(frame, rules.correlations, valid: valid, into: &violations)
            if valid { checkUniqueness(frame, rules.uniqueness, into: &violations) }
            checkRateLimits(rules.windowedByFrame, answeredCodes: answeredCodes, at: time, limiter: &limiter, into: &violations)
            applyTransition(frame, rules.transitions)
            startRun(after: frame, rules.runsAfter)
        }
        return violations
    }

    /// Whether the session would owe something if it ended now (``finish()`` would not be
    /// empty). Inlined, so a caller holding many machines reads one field of each, not a copy.
    @inlinable public var owesFrames: Bool { run.map { $0.remaining > 0 } ?? false }

    /// What the session still owes when it ends: a run that did not get all its frames.
    public func finish() -> [SessionViolation] {
        guard let run, run.remaining > 0 else { return [] }
        let plan = engine.runPlans[run.index]
        return [
            SessionViolation(
                severity: .warning, rule: .run, ruleName: plan.rule.name, code: plan.code, answer: nil,
                message: "the session ended \(run.remaining) \(plan.framesText) short of run '\(plan.rule.name)'")
        ]
    }

    // MARK: Phases

    private static func checkPhase(_ id: Int, in phaseIndex: Int?, of engine: SessionEngine, into violations: inout [SessionViolation]) {
        guard let phaseIndex, !engine.allowed[phaseIndex][id], let key = engine.keys.indices.contains(id) ? engine.keys[id] : nil else {
            return
        }
        let phase = engine.rules.phases[phaseIndex]
        let allowed = key.direction == .client ? phase.allowedClient : phase.allowedServer
        let list = allowed.isEmpty ? "nothing" : allowed.joined(separator: ", ")
        let answer = key.direction == .client ? phase.answer(toClient: key.tag) : nil
        violations.append(
            SessionViolation(
                rule: .phase, ruleName: phase.name, code: answer?.code ?? "phase", answer: answer,
                message: "not allowed in phase '\(phase.name)', where the \(key.direction.rawValue) may send \(list)"))
    }

    /// Applies the first of `transitions` that applies in the current phase and whose conditions
    /// the frame satisfies. The plans are borrowed from the engine, with no reference counted.
    private mutating func applyTransition(_ frame: SessionFrame, _ transitions: [Unmanaged<TransitionPlan>]) {
        let current = phaseIndex
        for transition in transitions {
            let applied = transition._withUnsafeGuaranteedRef { plan in
                guard plan.applies(in: current), frame.satisfies(plan.when) else { return false }
                apply(plan, to: frame)
                return true
            }
            if applied { return }
        }
    }

    /// Moves the session on by a transition the frame matched.
    private mutating func apply(_ plan: TransitionPlan, to frame: SessionFrame) {
        for assignment in plan.set {
            // A flag takes a boolean field's value; without the field it stays as it was (unknown until set).
            if case .bool(let value)? = frame.value(assignment.field) { flags.set(assignment.flag, value) }
        }
        phaseIndex = plan.to
        if let code = plan.transition.closeCode { closeCode = code }
    }

    // MARK: Runs

    /// Starts the run a frame opens (a run it cuts short was reported by ``checkRun(_:into:)``).
    private mutating func startRun(after frame: SessionFrame, _ runsAfter: [Int]) {
        for index in runsAfter {
            // Borrowed from the engine, with no reference counted.
            let count = engine.borrowedRunPlans[index]._withUnsafeGuaranteedRef { plan -> Int? in
                guard frame.satisfies(plan.when), case .integer(let count)? = frame.value(plan.count), count > 0 else { return nil }
                return count
            }
            if let count {
                run = (index, count)
                return
            }
        }
    }

    /// Checks that a frame of the run's sender is the next frame of the run in progress.
    private mutating func checkRun(_ frame: SessionFrame, into violations: inout [SessionViolation]) {
        guard let current = run else { return }
        // Borrowed from the engine, with no reference counted; only a broken run reads it again.
        let (concerned, continues) = engine.borrowedRunPlans[current.index]._withUnsafeGuaranteedRef { plan in
            guard engine.key(for: frame.message)?.direction == plan.rule.frame.direction else { return (false, false) }
            return (true, frame.message.index == plan.frame && frame.satisfies(plan.each))
        }
        guard concerned else { return }
        if continues {
            run = current.remaining > 1 ? (current.index, current.remaining - 1) : nil
            return
        }
        let plan = engine.runPlans[current.index]
        violations.append(
            SessionViolation(
                rule: .run, ruleName: plan.rule.name, code: plan.code, answer: plan.rule.otherwise,
                message:
                    "comes while \(current.remaining) more \(plan.framesText) of run '\(plan.rule.name)' are due (\(plan.rule.countField) in the "
                    + "\(plan.rule.after))"
            ))
        run = nil
    }

    // MARK: Correlations and uniqueness

    /// Checks the values a frame must answer (only when it is valid) and remembers the values it
    /// can be answered by (even when it has errors: a receiver may answer a rejected frame).
    private mutating func checkCorrelations(
        _ frame: SessionFrame, _ correlations: [MessageRules.Indexed<CorrelationPlan>], valid: Bool, into violations: inout [SessionViolation]
    ) {
        for entry in correlations {
            // The plan is borrowed from the engine, with no reference counted.
            entry.plan._withUnsafeGuaranteedRef { checkCorrelation(frame, $0, valid: valid, into: &violations) }
        }
    }

    private mutating func checkCorrelation(
        _ frame: SessionFrame, _ plan: CorrelationPlan, valid: Bool, into violations: inout [SessionViolation]
    ) {
        if valid, plan.frame == frame.message.index, let hash = frame.hash(plan.field),
            !memory.contains(SessionMemory.key(table: Self.seenTable, rule: plan.memoryRule, hash: hash))
        {
            let rule = plan.rule
            let value = frame.value(plan.field) ?? .null
            // With `scope: peer` the peer may have sent it on a connection this one replaced, which a
            // one-connection check cannot see: a warning, and nothing to answer.
            let fromPeer = rule.scope == .peer
            let message =
                fromPeer
                ? "'\(rule.field)' \(value) answers no \(rule.answers) on this connection; it is valid only if the "
                    + "\(rule.answers.direction.rawValue) sent it on a connection this one replaced (\(rule.name))"
                : "'\(rule.field)' \(value) answers no earlier \(rule.answers) (\(rule.name))"
            violations.append(
                SessionViolation(
                    severity: fromPeer ? .warning : .error, rule: .correlation, ruleName: rule.name, code: rule.otherwise?.code ?? rule.name,
                    answer: fromPeer ? nil : rule.otherwise, path: JSONPath.root.appending(rule.field), message: message))
        }
        if plan.remembers, plan.answers == frame.message.index, let hash = frame.hash(plan.answersField) {
            memory.set(SessionMemory.key(table: Self.seenTable, rule: plan.memoryRule, hash: hash))
        }
    }

    private mutating func checkUniqueness(
        _ frame: SessionFrame, _ uniqueness: [MessageRules.Indexed<UniquenessPlan>], into violations: inout [SessionViolation]
    ) {
        for entry in uniqueness {
            // The plan is borrowed from the engine, with no reference counted.
            entry.plan._withUnsafeGuaranteedRef { checkUniqueness(frame, $0, index: entry.index, into: &violations) }
        }
    }

    /// Checks a frame against one uniqueness rule and remembers what later frames with its key
    /// are compared with. Once a key's final frame has passed (a rule with `final`), only that is
    /// remembered: any later frame with the key is the one violation, so the final frame leaves
    /// no fingerprint or grown length behind, and a long connection's memory grows by one entry
    /// per finished stream, not four.
    private mutating func checkUniqueness(_ frame: SessionFrame, _ plan: UniquenessPlan, index: Int, into violations: inout [SessionViolation]) {
        guard let keyHash = frame.hash(plan.key) else { return }
        let finalSlot = SessionMemory.key(table: Self.finalizedTable, rule: index, hash: keyHash)
        if !plan.final.isEmpty, memory.contains(finalSlot) {
            Self.report("repeats '\(plan.rule.key)' \(Self.keyValue(of: frame, plan)) after its final frame", of: plan, into: &violations)
            return
        }
        let isFinal = !plan.final.isEmpty && frame.satisfies(plan.final)
        // Only violations read the rule's text (`report`); the common path captures nothing, so
        // it counts no reference to the plan or its lists.
        if !plan.sameFields.isEmpty {
            let slot = SessionMemory.key(table: Self.fingerprintTable, rule: index, hash: keyHash)
            let earlier = memory.value(for: slot)
            // A key's first frame that is also its final one is compared with nothing and leaves
            // nothing behind, so its fingerprint (a hash of its fields, decoding inline images)
            // is not worked out: the echo of a user's message is such a frame.
            if earlier != nil || !isFinal {
                let fingerprint = UInt64(bitPattern: Int64(fingerprint(frame, plan)))
                if let earlier, earlier != fingerprint {
                    let fields = plan.rule.sameFields.joined(separator: " or ")
                    Self.report(
                        "reuses '\(plan.rule.key)' \(Self.keyValue(of: frame, plan)) with a different \(fields)", of: plan, into: &violations)
                } else if earlier == nil {
                    memory.set(slot, fingerprint)
                }
            }
            if isFinal, earlier != nil { memory.remove(slot) }
        }
        for position in 0..<plan.grows.count {
            // The field's bytes are read where the plan keeps its key: passing the key on would
            // count a reference to it.
            let (bytes, signature) = plan.grows.withUnsafeBufferPointer { ($0[position].bytes, $0[position].signature) }
            guard
                let complaint = checkGrowth(
                    frame, field: bytes, signature: signature, rule: index &* 64 &+ position, keyHash: keyHash, remember: !isFinal)
            else { continue }
            let field = plan.grows[position]
            Self.report(
                "'\(field.text)' of \(plan.rule.key) \(Self.keyValue(of: frame, plan)) \(complaint)", path: field.text, of: plan,
                into: &violations)
        }
        if isFinal { memory.set(finalSlot) }
    }

    /// The value of a uniqueness rule's key in a frame that breaks the rule, for its message.
    private static func keyValue(of frame: SessionFrame, _ plan: UniquenessPlan) -> JSONValue {
        frame.value(plan.key) ?? .null
    }

    /// Adds a broken uniqueness rule to `violations`, at `path` (the rule's key when `nil`).
    private static func report(_ message: String, path: String? = nil, of plan: UniquenessPlan, into violations: inout [SessionViolation]) {
        let rule = plan.rule
        violations.append(
            SessionViolation(
                rule: .uniqueness, ruleName: rule.name, code: rule.otherwise?.code ?? rule.name, answer: rule.otherwise,
                path: JSONPath.root.appending(path ?? rule.key), message: message + " (\(rule.name))"))
    }

    /// The hash a repeated key's `sameFields` must reproduce, exact or normalized.
    private func fingerprint(_ frame: SessionFrame, _ plan: UniquenessPlan) -> Int {
        var hash = JSONTape.ValueHash()
        // The keys and shapes are read where the plan keeps them, with no reference counted.
        plan.sameFields.withUnsafeBufferPointer { fields in
            plan.sameFieldHasShape.withUnsafeBufferPointer { hasShape in
                for position in fields.indices {
                    // An absent field mixes in 0 either way; its shape is not read.
                    guard let member = frame.tape.member(of: frame.object, key: fields[position]) else {
                        hash.combine(0)
                        continue
                    }
                    if !plan.normalized {
                        hash.combine(1)
                        frame.tape.hash(member, into: &hash)
                    } else if !hasShape[position], frame.tape.isScalar(member) {
                        // What `normalizedHash` mixes in for a present scalar without a shape.
                        hash.combine(frame.tape, member)
                    } else {
                        plan.sameFieldShapes.withUnsafeBufferPointer { shapes in
                            frame.tape.normalizedHash(member, plan: shapes[position], into: &hash)
                        }
                    }
                }
            }
        }
        return hash.value
    }

    /// Checks that a string field starts with its value in the previous frame with the same key
    /// (remembered as its length and the hash of its bytes), then remembers the new value; with
    /// `remember` false (the key's final frame) it forgets the earlier one instead.
    /// Returns what is wrong with the field, or `nil` when it extends the one before (or is the first).
    /// `field` is the field's key as UTF-8 bytes, and `signature` their ``JSONTape/keySignature(_:)``.
    private mutating func checkGrowth(
        _ frame: SessionFrame, field: UnsafeBufferPointer<UInt8>, signature: UInt64, rule: Int, keyHash: Int, remember: Bool
    )
        -> String?
    {
        guard let member = frame.tape.member(of: frame.object, keyBytes: field, signature: signature), frame.tape.kind(member) == .string
        else { return nil }
        let lengthSlot = SessionMemory.key(table: Self.grownLengthTable, rule: rule, hash: keyHash)
        let earlierLength = memory.value(for: lengthSlot).map { Int($0) }
        // The key's first frame, when it is also its final one: nothing to extend, nothing to keep.
        guard earlierLength != nil || remember else { return nil }
        let hashSlot = SessionMemory.key(table: Self.grownHashTable, rule: rule, hash: keyHash)
        let earlierHash = memory.value(for: hashSlot)
        // The new text's hash and its earlier length's prefix's hash, in one pass over its bytes.
        let (length, fullHash, prefixHash) = frame.tape.withStringBytes(member) { bytes -> (Int, UInt64, UInt64?) in
            var hash = JSONTape.ValueHash()
            let prefix = hash.combine(bytes: bytes, prefixHashOf: earlierLength)
            return (bytes.count, UInt64(bitPattern: Int64(hash.value)), prefix.map { UInt64(bitPattern: Int64($0)) })
        }
        if remember {
            memory.set(lengthSlot, UInt64(length))
            memory.set(hashSlot, fullHash)
        } else if earlierLength != nil {
            memory.remove(lengthSlot)
            memory.remove(hashSlot)
        }
        guard let earlierLength, let earlierHash else { return nil }
        if length < earlierLength {
            return "is \(length) bytes, shorter than the \(earlierLength) of the frame before; each frame must extend the previous one"
        }
        if prefixHash != earlierHash { return "does not start with the text of the frame before; each frame must extend the previous one" }
        return nil
    }

    // MARK: Rate limits

    private mutating func checkRateLimits(
        _ windowedByFrame: [Int], answeredCodes: [String], at time: Double?, limiter: inout RateLimiter,
        into violations: inout [SessionViolation]
    ) {
        guard !engine.windowed.isEmpty else { return }
        guard let time else {
            if !saidNoTimestamps {
                saidNoTimestamps = true
                violations.append(
                    SessionViolation(
                        severity: .warning, rule: .rateLimit, ruleName: "", code: "no_timestamps", answer: nil,
                        message: "this session's frames carry no timestamps, so its rate limits are not checked"))
            }
            return
        }
        for limit in windowedByFrame {
            Self.count(limit, of: engine, at: time, limiter: &limiter, into: &violations)
        }
        guard !answeredCodes.isEmpty else { return }
        for limit in engine.windowedByViolation {
            for _ in answeredCodes.filter(engine.windowed[limit].countedCodes.contains) {
                Self.count(limit, of: engine, at: time, limiter: &limiter, into: &violations)
            }
        }
    }

    /// Adds one event to a limit's window and reports the event that takes it over the limit.
    /// Static, with the engine passed in: a method of the machine, called from a mutating one,
    /// copied the whole machine for every frame.
    private static func count(
        _ index: Int, of engine: SessionEngine, at time: Double, limiter: inout RateLimiter, into violations: inout [SessionViolation]
    ) {
        let (window, limitCount) = engine.windowed.withUnsafeBufferPointer { ($0[index].window, $0[index].limit.limit) }
        guard limiter.add(to: index, at: time, window: window, limit: limitCount) > limitCount else {
            return
        }
        let plan = engine.windowed[index]
        let limit = plan.limit
        violations.append(
            SessionViolation(
                rule: .rateLimit, ruleName: limit.name, code: limit.answer?.code ?? limit.name, answer: limit.answer,
                message:
                    "breaks the rate limit '\(limit.name)': more than \(limit.limit) \(plan.countedText) within "
                    + DurationText.from(milliseconds: Int(plan.window))
            ))
    }
}
