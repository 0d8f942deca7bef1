import Foundation
@_spi(Generated) import WireRuntime

/// What the reader knows before it reads the parts of a spec that refer to other parts.
struct SpecIndex {
    var typeNames: [String] = []
    var errorCodes: [String] = []
    var keyStyle: KeyStyle = .camelCase
    var tagField: String = "type"
}

extension SpecReader {
    static let constraintKeys = [
        "minLength", "maxLength", "minBytes", "maxBytes", "notBlank", "prefix", "pattern", "format",
        "maxDecodedBytes", "const", "minimum", "maximum", "minItems", "maxItems",
    ]
    static let fieldKeys = ["type", "description", "optional", "nullable", "default", "deprecated", "violation"] + constraintKeys
    static let objectKeys = ["fields", "rules", "unknownFields", "rejectFields"]

    // MARK: Type references

    /// Reads a type expression and checks that every name in it is defined.
    func typeRef(_ node: YAMLNode, in context: String, index: SpecIndex) -> TypeRef? {
        guard let text = string(node, "'type' in \(context)") else { return nil }
        guard case .success(let type) = TypeRef.parse(text) else {
            error(
                "malformed type '\(text)' in \(context): write a built-in type (\(TypeRef.builtinNames.joined(separator: ", "))), array<T>, "
                    + "map<T>, map<K, V> or the name of a type under 'types'",
                at: node.location)
            return nil
        }
        var resolved = true
        for name in type.referencedNames where !index.typeNames.contains(name) {
            let candidates = index.typeNames + TypeRef.builtinNames
            error("undefined type '\(name)' in \(context)\(Suggestions.hint(for: name, in: candidates))", at: node.location)
            resolved = false
        }
        return resolved ? type : nil
    }

    // MARK: Fields

    /// Reads the `fields:` mapping of an object or message.
    func fields(_ node: YAMLNode, owner: String, index: SpecIndex, isMessage: Bool) -> [Field] {
        guard let entries = entries(node, in: "the fields of \(owner)") else { return [] }
        return entries.compactMap { entry in
            checkFieldName(entry.key, at: entry.keyLocation, owner: owner, index: index, isMessage: isMessage)
            return field(name: entry.key, location: entry.keyLocation, node: entry.value, index: index)
        }
    }

    private func checkFieldName(_ name: String, at location: SourceLocation, owner: String, index: SpecIndex, isMessage: Bool) {
        if isMessage, name == index.tagField {
            error("\(owner) declares the tag field '\(name)'; it is implied by the message's tag and must not be listed", at: location)
            return
        }
        if !index.keyStyle.admits(name) {
            error("field name '\(name)' in \(owner) does not follow the protocol's \(index.keyStyle.rawValue) key style", at: location)
        }
    }

    /// Reads one field: either a type expression (`active: boolean`) or a mapping.
    func field(name: String, location: SourceLocation, node: YAMLNode, index: SpecIndex) -> Field? {
        let context = "field '\(name)'"
        if case .scalar = node.kind {
            guard let type = typeRef(node, in: context, index: index) else { return nil }
            return Field(name: name, type: type, location: location)
        }
        guard let map = mapping(node, in: context, allowedKeys: Self.fieldKeys),
            let typeNode = require("type", in: map, context: context)
        else { return nil }
        let type = typeRef(typeNode, in: context, index: index)
        let description = map["description"].flatMap { string($0, "'description' in \(context)") }
        let optional = map["optional"].flatMap { bool($0, "'optional' in \(context)") } ?? false
        let nullable = map["nullable"].flatMap { bool($0, "'nullable' in \(context)") } ?? false
        let deprecated = map["deprecated"].flatMap { bool($0, "'deprecated' in \(context)") } ?? false
        let defaultValue = map["default"].map(value)
        let violation = map["violation"].flatMap { answer($0, "'violation' in \(context)", index: index) }
        let constraints = constraints(map, context: context)
        guard let type else { return nil }
        return Field(
            name: name, description: description, type: type, required: !optional, nullable: nullable,
            defaultValue: defaultValue, constraints: constraints, violation: violation, deprecated: deprecated, location: location
        )
    }

    // MARK: Constraints

    /// Reads the constraint keys present in a mapping; their applicability to the type is checked later.
    func constraints(_ map: Mapping, context: String) -> Constraints {
        var result = Constraints()
        func size(_ key: String) -> Int? {
            map[key].flatMap { nonNegativeInteger($0, "'\(key)' in \(context)") }
        }
        result.minLength = size("minLength")
        result.maxLength = size("maxLength")
        result.minBytes = size("minBytes")
        result.maxBytes = size("maxBytes")
        result.maxDecodedBytes = size("maxDecodedBytes")
        result.minItems = size("minItems")
        result.maxItems = size("maxItems")
        result.notBlank = map["notBlank"].flatMap { bool($0, "'notBlank' in \(context)") } ?? false
        result.prefix = map["prefix"].flatMap { string($0, "'prefix' in \(context)") }
        if let node = map["pattern"], let pattern = string(node, "'pattern' in \(context)") {
            if !WirePattern.isValid(pattern) {
                error("'pattern' in \(context) is not a valid regular expression: \(pattern)", at: node.location)
            } else {
                result.pattern = pattern
            }
        }
        result.format = map["format"].flatMap { oneOf($0, "'format' in \(context)", ValueFormat.self, allowed: ValueFormat.allCases) }
        result.const = map["const"].map(value)
        result.minimum = map["minimum"].flatMap { number($0, "'minimum' in \(context)") }
        result.maximum = map["maximum"].flatMap { number($0, "'maximum' in \(context)") }
        checkOrder(map, "minLength", result.minLength, "maxLength", result.maxLength, context: context)
        checkOrder(map, "minBytes", result.minBytes, "maxBytes", result.maxBytes, context: context)
        checkOrder(map, "minItems", result.minItems, "maxItems", result.maxItems, context: context)
        checkOrder(map, "minimum", result.minimum, "maximum", result.maximum, context: context)
        return result
    }

    private func checkOrder<T: Comparable>(_ map: Mapping, _ lowKey: String, _ low: T?, _ highKey: String, _ high: T?, context: String) {
        guard let low, let high, low > high, let node = map[highKey] else { return }
        error("'\(highKey)' (\(high)) in \(context) is smaller than '\(lowKey)' (\(low))", at: node.location)
    }

    // MARK: Answers

    /// Reads an answer: an error code (`invalid_message`) or `{error, close, closeCode}`.
    func answer(_ node: YAMLNode, _ what: String, index: SpecIndex, maySendNothing: Bool = false) -> Answer? {
        if case .scalar = node.kind {
            guard let code = errorCodeReference(node, what, index: index) else { return nil }
            return Answer(errorCode: code)
        }
        guard let map = mapping(node, in: what, allowedKeys: ["error", "close", "closeCode"]) else { return nil }
        let close = map["close"].flatMap { bool($0, "'close' in \(what)") }
        let closeCode = map["closeCode"].flatMap { closeCodeValue($0, "'closeCode' in \(what)") }
        guard let codeNode = map["error"] else {
            guard maySendNothing else {
                error(
                    "missing required key 'error' in \(what) (only 'notJSON' and 'notAFrame' under 'validation' may close without sending an error)",
                    at: map.node.location)
                return nil
            }
            guard close == true, closeCode != nil else {
                error(
                    "\(what) has no 'error', so it sends nothing: it must close the connection with 'close: true' and a 'closeCode'",
                    at: map.node.location)
                return nil
            }
            return Answer(errorCode: nil, close: true, closeCode: closeCode)
        }
        guard let code = errorCodeReference(codeNode, "'error' in \(what)", index: index) else { return nil }
        return Answer(errorCode: code, close: close, closeCode: closeCode)
    }

    /// A reference to an error code of the spec.
    func errorCodeReference(_ node: YAMLNode, _ what: String, index: SpecIndex) -> String? {
        guard let code = string(node, what) else { return nil }
        guard index.errorCodes.contains(code) else {
            error("undefined error code '\(code)' in \(what)\(Suggestions.hint(for: code, in: index.errorCodes))", at: node.location)
            return nil
        }
        return code
    }

    /// A WebSocket close code (1000–4999).
    func closeCodeValue(_ node: YAMLNode, _ what: String) -> Int? {
        guard let value = integer(node, what) else { return nil }
        guard (1000...4999).contains(value) else {
            error("\(what) must be a WebSocket close code between 1000 and 4999, found \(value)", at: node.location)
            return nil
        }
        return value
    }
}
