import Yams

/// A YAML node with the source location of its first character.
///
/// This is the loader's private view of a document: mappings keep their key order and every
/// key keeps its own location, so diagnostics can point at the exact key that is wrong.
package struct YAMLNode: Sendable {
    package enum Kind: Sendable {
        /// A scalar: its text, and whether it was quoted or a block scalar (then it is always a string).
        case scalar(String, plain: Bool)
        /// A mapping, keys in document order.
        case mapping([Entry])
        /// A sequence.
        case sequence([YAMLNode])
    }

    /// One key/value pair of a mapping.
    package struct Entry: Sendable {
        package var key: String
        package var keyLocation: SourceLocation
        package var value: YAMLNode
    }

    package var kind: Kind
    package var location: SourceLocation

    package init(kind: Kind, location: SourceLocation) {
        self.kind = kind
        self.location = location
    }

    /// A short name for the node's kind, used in "expected X, found Y" messages.
    package var kindDescription: String {
        switch kind {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let text, let plain):
            guard plain else { return "a string" }
            switch YAMLScalar.resolve(text) {
            case .null: return "null"
            case .bool: return "a boolean"
            case .integer: return "an integer"
            case .number: return "a number"
            case .string: return "a string"
            }
        }
    }
}

/// The value of a plain scalar under the YAML 1.2 core schema.
package enum YAMLScalar: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)

    /// Whether a plain scalar's text is null (`~`, `null` in three spellings, or nothing), as
    /// ``resolve(_:)`` would say, without resolving it.
    package static func isNull(_ text: String) -> Bool {
        switch text {
        case "", "~", "null", "Null", "NULL": true
        default: false
        }
    }

    /// Resolves a plain (unquoted) scalar's text.
    package static func resolve(_ text: String) -> YAMLScalar {
        switch text {
        case _ where isNull(text): return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: break
        }
        // Every number starts with a digit, a sign or a point: other text (most of a spec's
        // scalars, its names and words) is a string without the number parsers' work.
        guard let first = text.utf8.first,
            first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
                || first.isASCIIDigit
        else { return .string(text) }
        let digits = text.utf8.contains(UInt8(ascii: "_")) ? String(text.filter { $0 != "_" }) : text
        if let value = Int(digits) { return .integer(value) }
        if digits.hasPrefix("0x"), let value = Int(digits.dropFirst(2), radix: 16) { return .integer(value) }
        if digits.hasPrefix("0o"), let value = Int(digits.dropFirst(2), radix: 8) { return .integer(value) }
        if digits.first.map({ $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." }) == true,
            let value = Double(digits), value.isFinite
        {
            return .number(value)
        }
        return .string(text)
    }
}

/// Parses YAML text into located nodes; a syntax error becomes a located diagnostic.
package enum YAMLParser {
    package static func parse(_ text: String, file: String) -> Result<YAMLNode?, Diagnostic> {
        do {
            // Scalars are resolved here (`YAMLScalar`), not by tags: the basic resolver tags none,
            // and so runs none of the default resolver's regular expressions on every scalar.
            // Nodes are read, never constructed into Swift values, so the constructor has no
            // maps: the default's are built on first use, about 0.1 ms of every process that
            // loads a spec. The text is UTF-8, said here so that Yams does not look for its
            // environment variable to choose.
            let constructor = Constructor([:], [:], [:])
            guard let root = try Yams.compose(yaml: text, .basic, constructor, .utf8) else { return .success(nil) }
            return .success(convert(root, file: file))
        } catch let error as YamlError {
            return .failure(diagnostic(for: error, file: file))
        } catch {
            return .failure(Diagnostic(.error, "cannot parse YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1)))
        }
    }

    private static func convert(_ node: Node, file: String) -> YAMLNode {
        let location = SourceLocation(file: file, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1)
        switch node {
        case .scalar(let scalar):
            return YAMLNode(kind: .scalar(scalar.string, plain: scalar.style == .plain), location: location)
        case .sequence(let sequence):
            return YAMLNode(kind: .sequence(sequence.map { convert($0, file: file) }), location: location)
        case .mapping(let mapping):
            let entries = mapping.map { pair -> YAMLNode.Entry in
                let key = convert(pair.key, file: file)
                let keyText: String
                if case .scalar(let text, _) = key.kind { keyText = text } else { keyText = "<\(key.kindDescription)>" }
                return YAMLNode.Entry(key: keyText, keyLocation: key.location, value: convert(pair.value, file: file))
            }
            return YAMLNode(kind: .mapping(entries), location: location)
        }
    }

    private static func diagnostic(for error: YamlError, file: String) -> Diagnostic {
        func located(_ problem: String, _ context: YamlError.Context?, _ mark: Mark) -> Diagnostic {
            var message = "malformed YAML: \(problem)"
            if let context { message += " (\(context.text) at line \(context.mark.line))" }
            return Diagnostic(.error, message, at: SourceLocation(file: file, line: mark.line, column: mark.column))
        }
        switch error {
        case let .scanner(context, problem, mark, _): return located(problem, context, mark)
        case let .parser(context, problem, mark, _): return located(problem, context, mark)
        case let .composer(context, problem, mark, _): return located(problem, context, mark)
        case let .reader(problem, offset, _, yaml):
            let position = lineAndColumn(ofUTF8Offset: offset ?? 0, in: yaml)
            return Diagnostic(.error, "malformed YAML: \(problem)", at: SourceLocation(file: file, line: position.line, column: position.column))
        default:
            return Diagnostic(.error, "malformed YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
        }
    }

    private static func lineAndColumn(ofUTF8Offset offset: Int, in text: String) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for (index, scalar) in text.unicodeScalars.enumerated() where index < offset {
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }
}
