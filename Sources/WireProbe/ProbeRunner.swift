import Foundation
import WireRuntime
import WireSpec

/// Runs a ``ProbePlan`` against a provider and judges each case.
///
/// After a case's frame the probe sends a *marker*, a frame whose answer it can recognise: where
/// the spec correlates a server frame with a client message allowed in the phase (Clawline's
/// `ack.id` answers `message.id`), a valid such message with an id of its own; otherwise a JSON
/// object without a tag, answered as the spec's `notAFrame` says. Everything the provider sent
/// before the marker's answer is the case's answer, so no case waits on a timer when the provider
/// answers; the timeout only bounds a provider that does not.
///
/// Frames counted by a windowed rate limit are paced so that no case trips a limit it does not
/// check; a case that needs a device's limits untouched (a rate-limit case, the next size
/// violation over an oversize limit) runs as a fresh identity.
public actor ProbeRunner {
    private let spec: ProtocolSpec
    private let connector: any ProbeConnector
    private let setup: (any ProbeSetup)?
    private let timeout: Duration
    private let engine: SessionEngine
    private let errorTags: Set<String>
    private let errorCodeField: String
    private let errorNamesField: String?
    private let initialPhase: String
    private let clock = ContinuousClock()

    private var identity = 0
    private var open: [String: ProbeSession] = [:]
    private var sent: [String: [ContinuousClock.Instant]] = [:]
    private var violations: [ContinuousClock.Instant] = []
    private var markerCount = 0

    /// A runner reaching phases after the initial one with `setup`, waiting at most `timeout` for an answer.
    public init(spec: ProtocolSpec, connector: any ProbeConnector, setup: (any ProbeSetup)?, timeout: Duration = .seconds(5)) {
        self.spec = spec
        self.connector = connector
        self.setup = setup
        self.timeout = timeout
        engine = SessionEngine(rules: spec.sessionRuleSet, rateLimits: spec.rateLimitRules)
        let errorMessages = spec.messages(.server).filter { $0.shape.fields.contains { $0.type == .named(ProtocolSpec.errorCodeTypeName) } }
        let errorTags = Set(errorMessages.map(\.tag))
        self.errorTags = errorTags
        errorCodeField = errorMessages.first?.shape.fields.first { $0.type == .named(ProtocolSpec.errorCodeTypeName) }?.name ?? "code"
        errorNamesField = spec.session?.correlations.first { errorTags.contains($0.frame.tag) && $0.frame.direction == .server }?.field
        initialPhase = spec.session?.initialPhase?.name ?? "connected"
    }

    /// Runs every case in order; `report` hears each result as it comes.
    ///
    /// A case whose socket or setup cannot be had is a setup failure (``ProbeResult/Verdict/setupFailed``)
    /// naming the step, never a failed rule; once a phase's setup has failed, its later cases are
    /// setup failures with the same reason, and the other phases' cases still run.
    public func run(_ plan: ProbePlan, report: @Sendable (ProbeResult) -> Void = { _ in }) async throws -> [ProbeResult] {
        var results: [ProbeResult] = []
        var failedSetups: [String: String] = [:]
        if let setup, !plan.cases.isEmpty {
            do {
                try await setup.prepare(context: setupContext)
            } catch {
                for phase in setup.phases { failedSetups[phase] = "preparing the setup: \(error)" }
            }
        }
        for probeCase in plan.cases {
            let start = clock.now
            var result: ProbeResult
            if probeCase.phase != initialPhase, !(setup?.phases.contains(probeCase.phase) ?? false) {
                result = ProbeResult(probeCase: probeCase, verdict: .skipped, got: "", detail: "no setup reaches \(probeCase.phase)")
            } else if let reason = failedSetups[probeCase.phase] {
                result = ProbeResult(probeCase: probeCase, verdict: .setupFailed, got: "", detail: reason)
            } else {
                do {
                    result = probeCase.kind == .rateLimit ? try await runRateLimit(probeCase) : try await runSingle(probeCase)
                } catch is CancellationError {
                    throw CancellationError()
                } catch {
                    // A socket that would not open, or a setup that could not reach the phase.
                    let reason = "reaching \(probeCase.phase): \(error)"
                    if error is ProbeSetupError, probeCase.phase != initialPhase { failedSetups[probeCase.phase] = reason }
                    result = ProbeResult(probeCase: probeCase, verdict: .setupFailed, got: "", detail: reason)
                }
            }
            if result.verdict == .failed, let note = await setup?.cleanUp(after: probeCase) {
                result.detail += result.detail.isEmpty ? note : "; \(note)"
            }
            result.duration = clock.now - start
            report(result)
            results.append(result)
        }
        for session in open.values { await session.close() }
        return results
    }

    // MARK: One frame

    private func runSingle(_ probeCase: ProbeCase) async throws -> ProbeResult {
        let sizeLimited = violationLimit.map { probeCase.expected?.code.map($0.codes.contains) == true } ?? false
        if sizeLimited, let limit = violationLimit {
            violations.removeAll { clock.now - $0 > limit.window }
            if violations.count + 1 >= limit.count { try await freshIdentity() }
        }
        let session = try await session(in: probeCase.phase)
        let caseStart = clock.now
        defer { restampSent(since: caseStart) }
        if probeCase.phase == initialPhase {
            // A socket of its own, and identifiers of its own in the frame: nothing to pace.
            try await session.send(probeCase.frames[0])
        } else {
            try await pacedSend(probeCase.frames[0], on: session)
        }
        defer { if probeCase.phase == initialPhase { Task { await session.close() } } }
        let observed = try await observe(
            session, closeExpected: probeCase.expected?.closesConnection == true, sameCodeAnswers: probeCase.expected?.code == markerCode ? 1 : 0)
        if sizeLimited { violations.append(clock.now) }
        var result = judge(probeCase, observed)
        if probeCase.providerLimit, result.verdict == .failed {
            // The spec states this limit as its own provider's, not as the contract's rule.
            result.verdict = .warned
            result.detail = "a provider limit, not the contract's rule: \(result.detail)"
        }
        return result
    }

    private func judge(_ probeCase: ProbeCase, _ observed: Observed) -> ProbeResult {
        let got = observed.words
        func failed(_ why: String) -> ProbeResult { ProbeResult(probeCase: probeCase, verdict: .failed, got: got, detail: why) }
        guard let expected = probeCase.expected else {
            if let close = observed.close { return failed("a valid frame closed the socket (\(close.map(String.init) ?? "no code"))") }
            if let refusal = observed.errors.first(where: { frameRuleCodes.contains($0.code) }) {
                return failed("a valid frame was answered \(refusal.code), the spec's answer to a broken frame")
            }
            if !observed.markerAnswered { return failed("nothing came back within \(timeout) after a valid frame and the probe's marker") }
            let note =
                observed.errors.isEmpty
                ? "" : "answered \(observed.errors.map(\.code).joined(separator: ", ")), which depends on the provider's state"
            return ProbeResult(probeCase: probeCase, verdict: .passed, got: got, detail: note)
        }
        if let code = expected.code {
            guard let first = observed.errors.first else {
                return failed(observed.close != nil ? "the socket closed without the error" : "no error came back within \(timeout)")
            }
            if first.code != code { return failed("the error is \(first.code), the spec says \(code)") }
            if let id = probeCase.correlatedID, let named = first.names, named != id {
                return failed("the error names \(named), the frame was \(id)")
            }
        } else if let first = observed.errors.first {
            return failed("the spec sends no error here; the provider sent \(first.code)")
        }
        if expected.closesConnection {
            guard let close = observed.close else { return failed("the socket stayed open; the spec closes it") }
            if let code = expected.closeCode, close != code {
                return failed("closed with \(close.map(String.init) ?? "no code"), the spec says \(code)")
            }
        } else if let close = observed.close {
            return failed("the socket closed (\(close.map(String.init) ?? "no code")); the spec keeps it open")
        } else if expected.code != nil, !observed.markerAnswered, observed.errors.count < 2, markerIsNotAFrame(probeCase.phase) {
            return failed("one answer came for the frame and the probe's marker: the frame itself was not answered")
        }
        return ProbeResult(probeCase: probeCase, verdict: .passed, got: got)
    }

    // MARK: Rate limits

    private func runRateLimit(_ probeCase: ProbeCase) async throws -> ProbeResult {
        guard let expected = probeCase.expected else { return ProbeResult(probeCase: probeCase, verdict: .skipped, got: "", detail: "no answer") }
        var observedAll: [Observed] = []
        if probeCase.phase == initialPhase {
            // Each frame on a socket of its own (the limit is the device's, named in the frame).
            for frame in probeCase.frames {
                let session = try await newSession()
                try await session.send(frame)
                observedAll.append(try await observe(session, closeExpected: false, sameCodeAnswers: 0))
                await session.close()
            }
        } else {
            try await freshIdentity()
            let session = try await session(in: probeCase.phase)
            for frame in probeCase.frames { try await session.send(frame) }
            // The marker must not be counted by the limit under test: wait its window out.
            if let marker = marker(for: probeCase.phase), probeCase.frames.first.map({ tag(of: $0) == tag(of: marker.frame) }) == true,
                let window = windows[tag(of: marker.frame) ?? ""]
            {
                try await Task.sleep(for: window.window + window.window / 5 + .milliseconds(100))
            }
            observedAll.append(
                try await observe(
                    session, closeExpected: expected.closesConnection, sameCodeAnswers: expected.code == markerCode ? probeCase.frames.count : 0))
            open[probeCase.phase] = nil
            await session.close()
            try await freshIdentity()
        }
        let all = observedAll.reduce(into: Observed()) { total, part in
            total.errors += part.errors
            total.close = part.close ?? total.close
            total.markerAnswered = part.markerAnswered
        }
        var result = ProbeResult(probeCase: probeCase, verdict: .passed, got: all.words)
        let limited = all.errors.filter { $0.code == expected.code }
        let last = observedAll.last ?? Observed()
        if limited.isEmpty {
            result.verdict = .failed
            result.detail = "\(probeCase.frames.count) frames in a row; none was answered \(expected.code ?? "with a close")"
        } else if probeCase.phase == initialPhase, last.errors.first?.code != expected.code {
            let refused = (observedAll.firstIndex { $0.errors.contains { $0.code == expected.code } } ?? -1) + 1
            result.verdict = .failed
            result.detail = "frame \(refused) was refused, not the one past the limit"
        } else if expected.closesConnection, last.close == nil {
            result.verdict = .failed
            result.detail = "the socket stayed open; the limit's answer closes it"
        } else if let code = expected.closeCode, expected.closesConnection, last.close != code {
            result.verdict = .failed
            result.detail = "closed with \(last.close.flatMap { $0 }.map(String.init) ?? "no code"), the spec says \(code)"
        }
        return result
    }

    // MARK: Sockets and identities

    private func newSession() async throws -> ProbeSession {
        let socket = try await connector.open()
        return ProbeSession(socket: socket, engine: engine, tagField: spec.tagField)
    }

    private func session(in phase: String) async throws -> ProbeSession {
        if phase == initialPhase { return try await newSession() }
        if let current = open[phase], await !current.isClosed { return current }
        try await freshIdentity()
        guard let setup else { throw ProbeSetupError("no setup reaches \(phase)") }
        let reached = try await setup.reach(phase, identity: identity, context: setupContext).session
        open[phase] = reached
        return reached
    }

    /// What a setup may do: open sockets the probe follows, and wait twice the probe's timeout.
    private var setupContext: ProbeSetupContext {
        ProbeSetupContext(
            open: { [connector, engine, tagField = spec.tagField] in
                ProbeSetupContext.Socket(session: ProbeSession(socket: try await connector.open(), engine: engine, tagField: tagField))
            }, timeout: timeout * 2)
    }

    private func freshIdentity() async throws {
        identity += 1
        for session in open.values { await session.close() }
        open = [:]
        sent = [:]
        violations = []
    }

    // MARK: Pacing

    private struct Window {
        var count: Int
        var window: Duration
        var codes: Set<String> = []
    }

    /// The windowed limits on client frames, by tag (the strictest rate).
    private var windows: [String: Window] {
        var result: [String: Window] = [:]
        for limit in spec.rateLimits {
            guard case .frames(let refs) = limit.counts, let milliseconds = limit.windowMilliseconds else { continue }
            for ref in refs where ref.direction == .client {
                let window = Window(count: limit.limit, window: .milliseconds(milliseconds))
                if let known = result[ref.tag], known.window / known.count > window.window / window.count { continue }
                result[ref.tag] = window
            }
        }
        return result
    }

    /// The windowed limit on answers (oversize frames), if any.
    private var violationLimit: Window? {
        for limit in spec.rateLimits {
            if case .violations(let codes) = limit.counts, let milliseconds = limit.windowMilliseconds {
                return Window(count: limit.limit, window: .milliseconds(milliseconds), codes: Set(codes))
            }
        }
        return nil
    }

    /// Sends `frame`, first waiting until its tag's window has room (a frame below the limit).
    private func pacedSend(_ frame: String, on session: ProbeSession) async throws {
        if let tag = tag(of: frame), let window = windows[tag] {
            var times = sent[tag, default: []]
            times.removeAll { clock.now - $0 >= window.window }
            if times.count >= window.count - 1, let oldest = times.first {
                try await Task.sleep(until: oldest + window.window + .milliseconds(20), clock: clock)
                times.removeFirst()
            }
            times.append(clock.now)
            sent[tag] = times
        }
        try await session.send(frame)
    }

    /// Counts the frames sent since `start` as sent now, when their answers came: a provider
    /// stamps a frame when it reads it, which may be well after it was sent (a slow commit
    /// before it), and the answer is the latest that can be.
    private func restampSent(since start: ContinuousClock.Instant) {
        let now = clock.now
        for tag in sent.keys { sent[tag] = sent[tag]?.map { $0 >= start ? now : $0 } }
    }

    private func tag(of frame: String) -> String? {
        guard case .object(let members)? = try? JSONParser.parse(frame), case .string(let tag)? = members[spec.tagField] else { return nil }
        return tag
    }

    // MARK: Markers and answers

    private struct Marker {
        var frame: String
        /// The value a server frame names when it answers the marker; `nil` for a not-a-frame marker.
        var id: String?
    }

    /// A marker for `phase`: a valid message a correlated server frame answers, when the phase
    /// allows one; else a JSON object without a tag.
    private func marker(for phase: String) -> Marker? {
        let allowed = spec.session?.phase(named: phase)?.allowedClient ?? []
        for correlation in spec.session?.correlations ?? [] where correlation.scope == .connection && correlation.frame.direction == .server {
            guard allowed.contains(correlation.answers.tag),
                let message = spec.messages(.client).first(where: { $0.tag == correlation.answers.tag }),
                case .object(var members)? = message.examples.first.map(JSONValue.init(spec:))
            else { continue }
            markerCount += 1
            let prefix: String = {
                guard case .string(let old)? = members[correlation.answersField] else { return "" }
                return String(old.prefix { $0 != "_" }) + (old.contains("_") ? "_" : "")
            }()
            let id = "\(prefix)probe_marker_\(identity)_\(markerCount)"
            members[correlation.answersField] = .string(id)
            return Marker(frame: JSONValue.object(members).text, id: id)
        }
        return nil
    }

    private func markerIsNotAFrame(_ phase: String) -> Bool {
        let allowed = spec.session?.phase(named: phase)?.allowedClient ?? []
        return !(spec.session?.correlations ?? []).contains { $0.scope == .connection && allowed.contains($0.answers.tag) }
    }

    /// The codes the spec answers broken frames with (a valid frame must never get one).
    private var frameRuleCodes: Set<String> { [spec.defaultErrorCode, spec.sizeErrorCode] }

    /// The code a not-a-frame marker is answered with.
    private var markerCode: String? { spec.resolved(spec.notAFrameAnswer).code }

    /// Sends the marker (unless a close is expected) and reads until its answer, a close, or the
    /// timeout. `sameCodeAnswers` is how many errors with the not-a-frame marker's code the case's
    /// own frames should get: the one after them is the marker's.
    private func observe(_ session: ProbeSession, closeExpected: Bool, sameCodeAnswers: Int) async throws -> Observed {
        var observed = Observed()
        let phase = await session.phase ?? initialPhase
        var marker: Marker?
        if !closeExpected {
            marker = self.marker(for: phase) ?? Marker(frame: "{}", id: nil)
            if let marker { try await pacedSend(marker.frame, on: session) }
        }
        var deadline = clock.now + timeout
        while clock.now < deadline {
            guard let event = try await session.next(within: deadline - clock.now) else { break }
            deadline = clock.now + timeout
            switch event {
            case .closed(let code):
                observed.close = .some(code)
                return observed
            case .text(let text):
                guard case .object(let members)? = try? JSONParser.parse(text), case .string(let tag)? = members[spec.tagField] else { continue }
                let names: String? = errorNamesField.flatMap { field in
                    if case .string(let value)? = members[field] { return value } else { return nil }
                }
                if let id = marker?.id {
                    let answersMarker = members.values.contains(.string(id))
                    if answersMarker {
                        observed.markerAnswered = true
                        if !closeExpected { return observed }
                        continue
                    }
                }
                guard errorTags.contains(tag), case .string(let code)? = members[errorCodeField] else { continue }
                observed.errors.append((code, names))
                if marker != nil, marker?.id == nil, code == markerCode, observed.errors.filter({ $0.code == code }).count == sameCodeAnswers + 1 {
                    // The last error is the not-a-frame marker's.
                    observed.errors.removeLast()
                    observed.markerAnswered = true
                    return observed
                }
            }
        }
        return observed
    }
}
