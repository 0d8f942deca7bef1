import Testing

@testable import WireSpec

/// Four lines every small test spec starts with, so messages begin on line 5.
let preamble = """
    protocol: {name: demo, title: Demo, version: 1}
    transport: {kind: websocket, path: /ws}
    validation: {errorCode: invalid_message, sizeErrorCode: payload_too_large}
    errors: {invalid_message: {httpStatus: 400, closes: sometimes, closeCode: 1008}, payload_too_large: {httpStatus: 413}, \
    rate_limited: {httpStatus: 429}}
    """

/// Loads a spec that must be valid and returns its model.
func loadValid(_ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> ProtocolSpec {
    let result = SpecLoader.check(yaml: yaml, file: "test.yaml")
    #expect(result.diagnostics.map(\.description) == [], sourceLocation: sourceLocation)
    return try #require(result.spec, sourceLocation: sourceLocation)
}

/// The diagnostics of a spec that must be invalid, as `file:line:col: error: message` lines.
func diagnostics(_ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [String] {
    let result = SpecLoader.check(yaml: yaml, file: "test.yaml")
    #expect(result.spec == nil, "an invalid spec must not produce a model", sourceLocation: sourceLocation)
    return result.diagnostics.map(\.description)
}

extension ProtocolSpec {
    func field(_ direction: Direction, _ tag: String, _ name: String) -> Field? {
        message(MessageRef(direction: direction, tag: tag))?.shape.field(named: name)
    }
}
