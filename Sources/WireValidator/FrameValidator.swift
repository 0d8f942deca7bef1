@_spi(Generated) import WireRuntime
@_spi(Generated) import WireSpec

/// Checks frames against a spec loaded at run time, for any spec and without generated code: the
/// spec's ``ValidationPlan`` run by WireRuntime's engine, the same engine and plan generated code
/// uses.
public struct FrameValidator: Sendable {
    /// The outcome of checking one frame.
    public typealias Outcome = FrameCheckOutcome

    let plan: ValidationPlan
    /// The spec the plan was made from.
    public let spec: ProtocolSpec

    /// Compiles the spec's checks once.
    public init(spec: ProtocolSpec) {
        self.spec = spec
        plan = spec.validationPlan
    }

    /// The answer to bytes that are not JSON.
    public var notJSONAnswer: ViolationAnswer { plan.notJSONAnswer }
    /// The answer to JSON that is not an object with a string tag.
    public var notAFrameAnswer: ViolationAnswer { plan.notAFrameAnswer }
    /// The answer to a frame of an unknown type, and the default answer.
    public var defaultAnswer: ViolationAnswer { plan.defaultAnswer }

    /// Whether a direction has a message with this tag.
    public func knows(_ tag: String, _ direction: Direction) -> Bool { plan.message(direction, tag: tag) != nil }

    /// The direction of a frame from its tag, when exactly one direction has the tag.
    public func direction(ofTag tag: String) -> Direction? {
        let directions = Direction.allCases.filter { knows(tag, $0) }
        return directions.count == 1 ? directions[0] : nil
    }

    /// Checks UTF-8 JSON bytes as a frame of `direction`.
    public func check(_ bytes: some Collection<UInt8>, direction: Direction) -> Outcome {
        var tape = JSONTape()
        do {
            try tape.parse(bytes)
        } catch {
            return .notJSON(error)
        }
        return tape.withView { check($0, at: JSONTape.root, direction: direction).outcome }
    }

    /// Checks the value at `index` of a parsed document as a frame of `direction`. Parsing into
    /// one reused ``JSONTape`` and checking from it is the fastest way to check many frames.
    public func check(_ tape: JSONTape, at index: Int = JSONTape.root, direction: Direction) -> Outcome {
        tape.withView { check($0, at: index, direction: direction).outcome }
    }

    /// Runs a captured frame's own checks (not its session's rules, which need the frames before
    /// it): the part of validating a capture that any thread can do, in any order.
    public func check(_ frame: consuming CapturedFrame) -> CheckedFrame {
        // The frame moves into the answer, not copied: a copy counts references to its tape and strings.
        let (result, message) = result(of: frame)
        return CheckedFrame(frame: frame, result: result, message: message)
    }

    /// What a frame's own checks find, and the plan's id of its message when its tag is known.
    func result(of frame: CapturedFrame) -> (result: CheckedFrame.Result, message: Int?) {
        guard let direction = frame.direction else { return (.noDirection, nil) }
        let (outcome, message) = check(frame.payload, direction: direction)
        return (.outcome(outcome, direction), message)
    }

    private func check(_ payload: borrowing CapturedFrame.Payload, direction: Direction) -> (outcome: Outcome, message: Int?) {
        switch payload {
        case .notJSON(let error): (.notJSON(error), nil)
        case .parsed(let document, let root): document.withView { check($0, at: root, direction: direction) }
        }
    }

    /// Checks the value at `index` of a parsed document as a frame of `direction`; also returns
    /// the id of its message in the plan when the tag is known.
    func check(_ tape: JSONTape.View, at index: Int, direction: Direction) -> (outcome: Outcome, message: Int?) {
        plan.check(tape, at: index, direction: direction)
    }
}

/// A captured frame with the outcome of its own checks, ready for its session's rules
/// (``CaptureValidation/process(_:)-(CheckedFrame)``).
public struct CheckedFrame: Sendable {
    /// What a frame's own checks found.
    enum Result: Sendable {
        /// The capture does not say who sent the frame, and its tag does not tell.
        case noDirection
        /// What checking the frame as sent by `direction` found.
        case outcome(FrameCheckOutcome, Direction)
    }

    /// The frame as read.
    public let frame: CapturedFrame
    let result: Result
    /// The plan's id of the frame's message, when its tag is known.
    let message: Int?
}
