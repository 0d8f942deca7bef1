// libyaml's C interface, which the Yams package builds and ships (its `CYaml` module). The nodes
// are composed here, straight from libyaml's events, not through Yams' node tree.
import CYaml

/// Parses YAML text into located nodes; a syntax error becomes a located diagnostic.
///
/// The nodes are made from libyaml's events as they come. Yams' `compose` made a tree of its own
/// first (with a tag, a style and a mark for every node, and every scalar decoded through
/// Foundation), which this parser then copied and threw away: about a quarter of what every
/// process that loads a spec did before its work began. `YAMLParserTests` holds the two to the
/// same nodes and the same diagnostics.
package enum YAMLParser {
    package static func parse(_ text: String, file: String) -> Result<YAMLNode?, Diagnostic> {
        var contiguous = text
        return contiguous.withUTF8 { bytes in
            let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
            // libyaml keeps a pointer to the parser in the parser (its input reads through it), so
            // the parser sits where it was allocated until it is deleted.
            guard yaml_parser_initialize(parser) == 1 else {
                parser.deallocate()
                return .failure(YAMLFailure(kind: .memory, problem: "Memory error", context: nil).diagnostic(in: text, file: file))
            }
            defer {
                yaml_parser_delete(parser)
                parser.deallocate()
            }
            yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(parser, bytes.baseAddress, bytes.count)
            var composer = YAMLComposer(parser: parser, file: file)
            defer { composer.discardPending() }
            do throws(YAMLFailure) {
                return .success(try composer.document())
            } catch {
                return .failure(error.diagnostic(in: text, file: file))
            }
        }
    }
}

/// Why a text is not one YAML document, with libyaml's words and marks (1-based).
struct YAMLFailure: Error {
    enum Kind {
        /// The bytes are not text libyaml reads (a control character, say), at a byte offset.
        case reader(byteOffset: Int)
        /// A token, an event or a document that is wrong where it is.
        case located(line: Int, column: Int)
        /// libyaml ran out of memory.
        case memory
    }

    var kind: Kind
    var problem: String
    /// What was being read, and where it began.
    var context: (text: String, line: Int)?

    /// The diagnostic for this failure, worded as it always has been.
    func diagnostic(in text: String, file: String) -> Diagnostic {
        switch kind {
        case .memory:
            return Diagnostic(.error, "malformed YAML: \(problem)", at: SourceLocation(file: file, line: 1, column: 1))
        case .reader(let byteOffset):
            let position = Self.lineAndColumn(ofByteOffset: byteOffset, in: text)
            return Diagnostic(.error, "malformed YAML: \(problem)", at: SourceLocation(file: file, line: position.line, column: position.column))
        case .located(let line, let column):
            var message = "malformed YAML: \(problem)"
            if let context { message += " (\(context.text) at line \(context.line))" }
            return Diagnostic(.error, message, at: SourceLocation(file: file, line: line, column: column))
        }
    }

    /// The line and column of a reader error. The offset is libyaml's, in bytes; it is counted
    /// in characters from the start and the column in Unicode scalars, as the diagnostics made
    /// through Yams counted them (an offset inside a character has no position: line 1, column 1).
    private static func lineAndColumn(ofByteOffset byteOffset: Int, in text: String) -> (line: Int, column: Int) {
        let characters =
            text.utf8.index(text.utf8.startIndex, offsetBy: byteOffset, limitedBy: text.utf8.endIndex)?
            .samePosition(in: text)
            .map { text.distance(from: text.startIndex, to: $0) } ?? 0
        var line = 1
        var column = 1
        for (index, scalar) in text.unicodeScalars.enumerated() where index < characters {
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

/// Composes one document's nodes from libyaml's events.
private struct YAMLComposer {
    let parser: UnsafeMutablePointer<yaml_parser_t>
    let file: String
    /// Nodes by anchor, for the aliases after them.
    var anchors: [String: YAMLNode] = [:]
    /// How many collections the node being read is in.
    private var depth = 0
    /// The deepest nesting read: nodes are composed by recursion, and a hostile document must
    /// get a diagnostic, not the end of the stack.
    static let maximumDepth = 512
    /// The next event, parsed (to see whether it ends a collection) and not yet read.
    private var pending: yaml_event_t?

    init(parser: UnsafeMutablePointer<yaml_parser_t>, file: String) {
        self.parser = parser
        self.file = file
    }

    /// The one document of the stream, or `nil` for a stream with none.
    mutating func document() throws(YAMLFailure) -> YAMLNode? {
        try withNextEvent { _ in }  // The start of the stream.
        guard try withNextEvent({ $0.type != YAML_STREAM_END_EVENT }) else { return nil }
        let root = try node()
        try withNextEvent { _ in }  // The end of the document.
        let end = try withNextEvent { event in event.type == YAML_STREAM_END_EVENT ? nil : Self.mark(of: event) }
        if let end {
            throw YAMLFailure(
                kind: .located(line: end.line, column: end.column), problem: "but found another document",
                context: ("expected a single document in the stream", 1))
        }
        return root
    }

    /// Deletes the event parsed to look ahead, if the document ended before it was read.
    mutating func discardPending() {
        guard var event = pending else { return }
        pending = nil
        yaml_event_delete(&event)
    }

    /// What one event says, read before the event is deleted.
    private enum Step {
        case scalar(YAMLNode, anchor: String?)
        case alias(String, line: Int, column: Int)
        case collection(mapping: Bool, location: SourceLocation, anchor: String?)
        /// An event no node starts with (libyaml gives none where a node is due).
        case unexpected(line: Int, column: Int)
    }

    /// The node whose first event comes next.
    private mutating func node() throws(YAMLFailure) -> YAMLNode {
        let file = file
        let step = try withNextEvent { event -> Step in
            let mark = Self.mark(of: event)
            let location = SourceLocation(file: file, line: mark.line, column: mark.column)
            switch event.type {
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                let node = YAMLNode(kind: .scalar(text, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE), location: location)
                return .scalar(node, anchor: Self.text(scalar.anchor))
            case YAML_ALIAS_EVENT:
                return .alias(Self.text(event.data.alias.anchor) ?? "", line: mark.line, column: mark.column)
            case YAML_SEQUENCE_START_EVENT:
                return .collection(mapping: false, location: location, anchor: Self.text(event.data.sequence_start.anchor))
            case YAML_MAPPING_START_EVENT:
                return .collection(mapping: true, location: location, anchor: Self.text(event.data.mapping_start.anchor))
            default:
                return .unexpected(line: mark.line, column: mark.column)
            }
        }
        switch step {
        case .scalar(let node, let anchor):
            if let anchor { anchors[anchor] = node }
            return node
        case .alias(let name, let line, let column):
            guard let node = anchors[name] else {
                throw YAMLFailure(kind: .located(line: line, column: column), problem: "found undefined alias", context: nil)
            }
            return node
        case .collection(let mapping, let location, let anchor):
            guard depth < Self.maximumDepth else {
                throw YAMLFailure(
                    kind: .located(line: location.line, column: location.column),
                    problem: "collections nested deeper than \(Self.maximumDepth) levels", context: nil)
            }
            depth += 1
            defer { depth -= 1 }
            let node = mapping ? try self.mapping(at: location) : try sequence(at: location)
            if let anchor { anchors[anchor] = node }
            return node
        case .unexpected(let line, let column):
            throw YAMLFailure(kind: .located(line: line, column: column), problem: "found no node where one was due", context: nil)
        }
    }

    /// Whether the next event ends the collection being read; consumed only when it does.
    private mutating func atEnd() throws(YAMLFailure) -> Bool {
        let type = try peekType()
        guard type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT else { return false }
        try withNextEvent { _ in }
        return true
    }

    private mutating func sequence(at location: SourceLocation) throws(YAMLFailure) -> YAMLNode {
        var items: [YAMLNode] = []
        while try !atEnd() { items.append(try node()) }
        return YAMLNode(kind: .sequence(items), location: location)
    }

    private mutating func mapping(at location: SourceLocation) throws(YAMLFailure) -> YAMLNode {
        var entries: [YAMLNode.Entry] = []
        while try !atEnd() {
            let key = try node()
            let keyText: String
            if case .scalar(let text, _) = key.kind { keyText = text } else { keyText = "<\(key.kindDescription)>" }
            entries.append(YAMLNode.Entry(key: keyText, keyLocation: key.location, value: try node()))
        }
        return YAMLNode(kind: .mapping(entries), location: location)
    }

    private mutating func peekType() throws(YAMLFailure) -> yaml_event_type_t {
        if let pending { return pending.type }
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw Self.failure(of: parser) }
        pending = event
        return event.type
    }

    /// Reads the next event with `body`, then deletes it.
    @discardableResult
    private mutating func withNextEvent<R>(_ body: (yaml_event_t) -> R) throws(YAMLFailure) -> R {
        _ = try peekType()
        var event = pending!
        pending = nil
        defer { yaml_event_delete(&event) }
        return body(event)
    }

    private static func mark(of event: yaml_event_t) -> (line: Int, column: Int) {
        (event.start_mark.line + 1, event.start_mark.column + 1)
    }

    /// An anchor's name (repairing what is not UTF-8, as Yams did), or `nil` for none.
    private static func text(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.flatMap { String.decodeCString($0, as: UTF8.self, repairingInvalidCodeUnits: true)?.result }
    }

    /// The failure libyaml reports.
    private static func failure(of parser: UnsafeMutablePointer<yaml_parser_t>) -> YAMLFailure {
        let state = parser.pointee
        let problem = state.problem.map { String(cString: $0) } ?? "unknown problem"
        switch state.error {
        case YAML_READER_ERROR:
            return YAMLFailure(kind: .reader(byteOffset: state.problem_offset), problem: problem, context: nil)
        case YAML_SCANNER_ERROR, YAML_PARSER_ERROR:
            let context = state.context.map { (String(cString: $0), state.context_mark.line + 1) }
            return YAMLFailure(
                kind: .located(line: state.problem_mark.line + 1, column: state.problem_mark.column + 1), problem: problem, context: context)
        default:
            return YAMLFailure(kind: .memory, problem: "Memory error", context: nil)
        }
    }
}
