import Foundation

/// Which peer sends a frame.
public enum FrameDirection: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// From the client to the server.
    case client
    /// From the server to the client.
    case server

    /// The other peer.
    public var opposite: FrameDirection { self == .client ? .server : .client }

    /// The client comes first.
    public static func < (lhs: FrameDirection, rhs: FrameDirection) -> Bool { lhs == .client && rhs == .server }
}

/// The frames one peer sends, as a generated enum with one case per message and an `unknown` case.
public protocol WireFrame: JSONWritable, Sendable, Hashable {
    /// Who sends these frames.
    static var direction: FrameDirection { get }
    /// The key that names the message (`type`).
    static var tagField: String { get }
    /// Every tag of this direction.
    static var knownTags: [String] { get }
    /// The protocol's error codes, generated from its error table.
    associatedtype ErrorCodeType: RawRepresentable & Sendable & Hashable where ErrorCodeType.RawValue == String

    /// The plan of the protocol, which WireRuntime's engine checks frames with.
    @_spi(Generated) static var validationPlan: ValidationPlan { get }

    /// Builds the frame of message `tag` from a tape whose value at `index` passed the message's
    /// checks; `nil` only if it did not.
    @_spi(Generated) static func build(tag: String, checked tape: JSONTape.View, at index: Int) -> Self?

    /// A frame for a tag this side does not know, keeping the raw JSON.
    @_spi(Generated) static func makeUnknown(tag: String, json: JSONValue) -> Self

    /// Decodes a frame from a buffer of UTF-8 JSON bytes, scanned in place (not copied). Generated
    /// frame types implement it with code specialised for them; other conformers get it by default.
    static func decode(_ buffer: UnsafeBufferPointer<UInt8>) -> FrameDecodeResult<Self>

    /// The frame's tag.
    var tag: String { get }
}

/// The outcome of decoding bytes into a frame.
public enum FrameDecodeResult<Frame: WireFrame>: Sendable {
    /// A valid frame, with any warnings (such as an unknown value of an open enum).
    case decoded(Frame, warnings: [ValidationIssue])
    /// The bytes are not JSON.
    case notJSON(JSONSyntaxError)
    /// The JSON is not an object, or has no string tag.
    case notAFrame(reason: String)
    /// The tag names no message of this direction; the frame keeps the raw JSON.
    case unknownType(Frame)
    /// The frame breaks the spec; every issue (errors and warnings) is listed.
    case invalid(tag: String, issues: [ValidationIssue])

    /// The frame when it decoded (valid or of an unknown type).
    public var frame: Frame? {
        switch self {
        case .decoded(let frame, _), .unknownType(let frame): return frame
        default: return nil
        }
    }

    /// Every issue, errors and warnings.
    public var issues: [ValidationIssue] {
        switch self {
        case .decoded(_, let warnings): return warnings
        case .invalid(_, let issues): return issues
        default: return []
        }
    }

    /// What a receiver answers: the spec's error code (or nothing, see ``ViolationAnswer/code``)
    /// and whether to close; `nil` for a valid frame.
    public var answer: ViolationAnswer? {
        switch self {
        case .decoded: return nil
        case .notJSON: return Frame.validationPlan.notJSONAnswer
        case .notAFrame: return Frame.validationPlan.notAFrameAnswer
        case .unknownType: return Frame.validationPlan.defaultAnswer
        case .invalid(_, let issues): return issues.answer
        }
    }

    /// The error code to answer with, as the protocol's enum; `nil` for a valid frame, and for
    /// an answer that sends no error (it only closes the connection).
    public var errorCode: Frame.ErrorCodeType? { answer?.code.flatMap(Frame.ErrorCodeType.init(rawValue:)) }

    /// One line describing why the frame was rejected; `nil` for a valid frame.
    public var rejectionReason: String? {
        switch self {
        case .decoded: return nil
        case .notJSON(let error): return "not JSON: \(error)"
        case .notAFrame(let reason): return reason
        case .unknownType(let frame): return "unknown \(Frame.direction.rawValue) message type '\(frame.tag)'"
        case .invalid(let tag, let issues):
            return "\(Frame.direction.rawValue) \(tag): " + issues.errors.map { "\($0.path): \($0.message)" }.joined(separator: "; ")
        }
    }
}

extension WireFrame {
    /// Decodes a frame from UTF-8 JSON bytes in one pass: parse into a tape, check it with the
    /// engine, build the frame from the tape. Contiguous bytes are scanned in place, not copied.
    /// Inlinable, so that it specialises where it is called and hands the bytes to the frame
    /// type's own ``decode(_:)-(UnsafeBufferPointer<UInt8>)`` without generic metadata.
    @inlinable
    public static func decode(_ bytes: some Collection<UInt8>) -> FrameDecodeResult<Self> {
        if let inPlace = bytes.withContiguousStorageIfAvailable({ decode($0) }) { return inPlace }
        return Array(bytes).withUnsafeBufferPointer { decode($0) }
    }

    /// Decodes a frame from JSON text, scanning its UTF-8 in place.
    @inlinable
    public static func decode(text: String) -> FrameDecodeResult<Self> {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    public static func decode(_ buffer: UnsafeBufferPointer<UInt8>) -> FrameDecodeResult<Self> {
        decodeFrame(scanning: buffer)
    }

    /// Scans `buffer` without copying it, then checks and builds the frame. Inlinable, so that a
    /// generated frame type's `decode(_:)` specialises it: a decode then meets no generic metadata
    /// on its way to the engine, which is not generic.
    @inlinable
    @_spi(Generated) public static func decodeFrame(scanning buffer: UnsafeBufferPointer<UInt8>) -> FrameDecodeResult<Self> {
        do throws(JSONSyntaxError) {
            return try JSONTape.scanning(buffer) { decode(checking: $0, at: JSONTape.root) }
        } catch {
            return .notJSON(error)
        }
    }

    /// Decodes a frame from a parsed JSON value.
    public static func decode(json: JSONValue) -> FrameDecodeResult<Self> {
        decode(JSONWriter.bytes(json))
    }

    /// Decodes the frame at `index` of a parsed tape: the engine checks it, then it is built.
    @inlinable
    @_spi(Generated) public static func decode(checking tape: JSONTape.View, at index: Int) -> FrameDecodeResult<Self> {
        switch validationPlan.check(tape, at: index, direction: direction).outcome {
        case .notJSON(let error): return .notJSON(error)
        case .notAFrame(let reason): return .notAFrame(reason: reason)
        case .unknownType(let tag): return .unknownType(makeUnknown(tag: tag, json: tape.value(index)))
        case .checked(let tag, let issues):
            guard issues.errors.isEmpty, let frame = build(tag: tag, checked: tape, at: index) else { return .invalid(tag: tag, issues: issues) }
            return .decoded(frame, warnings: issues)
        }
    }

    /// The canonical JSON bytes of the frame as `Data`.
    public func encodedData() -> Data { Data(encoded()) }

    /// Checks a frame built in code against the spec before it is sent: every issue, errors and warnings.
    public func validate() -> [ValidationIssue] {
        Self.decode(encoded()).issues
    }
}
