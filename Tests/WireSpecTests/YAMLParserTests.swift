import Foundation
import Testing
import Yams

@testable import WireSpec

/// `YAMLParser` composes nodes straight from libyaml's events. These tests hold it to what the
/// same text gave when it was composed through Yams' node tree (the reference below is that
/// code): the same nodes, locations, styles and diagnostics, for every YAML file in this
/// repository and for texts chosen for the corners of the language and its errors.
@Suite struct YAMLParserTests {
    /// Every YAML file of the repository (specs, AsyncAPI documents, golden inputs), by path.
    static let repositoryFiles: [String] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var found: [String] = []
        for directory in ["Spec", "Examples", "Tests", "Sources", "docs", "Benchmarks"] {
            let base = root.appendingPathComponent(directory)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where ["yaml", "yml"].contains(url.pathExtension) && !url.path.contains("/.build/") {
                found.append(url.path)
            }
        }
        return found.sorted()
    }()

    @Test func everyYAMLFileOfTheRepositoryComposesAsItDidThroughYams() throws {
        #expect(Self.repositoryFiles.count >= 50, "the walk found \(Self.repositoryFiles.count) YAML files")
        for path in Self.repositoryFiles {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(Self.described(YAMLParser.parse(text, file: path)) == Self.described(YamsReference.parse(text, file: path)), "\(path)")
        }
    }

    /// Texts for the corners: styles, anchors and aliases, flow collections, complex keys,
    /// non-ASCII text, and every kind of error libyaml and the composer report.
    static let texts: [String] = [
        "", "# only a comment\n", "---\n", "--- ~\n", "plain\n", "'single'\n", "\"double\\tq\"\n",
        "a: 1\nb: [1, 'two', \"three\", {c: d}]\n", "a: |\n  block\n  text\nb: >-\n  folded\n  text\n",
        "base: &b {x: 1, y: [a, b]}\nuse: *b\nscalar: &s word\nagain: *s\nlist: &l [1, 2]\nmore: *l\n",
        "? [complex, key]\n: value\n? {a: b}\n: other\n", "empty:\nnull: ~\n\"quoted key\": v\n'k': v\n",
        "names: {é: ü, 日本: 語}\n   # trailing\n", "- a\n- - b\n  - c\n- {d: e}\n",
        "a: !!str 123\nb: !custom x\nc: !!int '7'\n", "%YAML 1.1\n---\na: b\n",
        "a: b\n---\nc: d\n", "a: *missing\n", "a: {b: c\n", "a: [b, c\n", "a: 'unterminated\n",
        "protocol:\n\tname: x\n", "a: b\n  c: d\n", "- a\nb: c\n", "a: b: c\n", "key: \u{1}\n", "@reserved\n",
        "a: &x b\nc: &x d\ne: *x\n", "[a, b]: c\n", "x:\n  - y\n   - z\n",
    ]

    @Test(arguments: texts)
    func cornersComposeAsTheyDidThroughYams(_ text: String) {
        #expect(Self.described(YAMLParser.parse(text, file: "t.yaml")) == Self.described(YamsReference.parse(text, file: "t.yaml")))
    }

    @Test func aliasesRepeatTheAnchoredNodeWhereItWasDefined() throws {
        let root = try #require(try YAMLParser.parse("a: &n {b: c}\nd: *n\n", file: "t.yaml").get())
        guard case .mapping(let entries) = root.kind else {
            Issue.record("not a mapping")
            return
        }
        #expect(entries.map(\.key) == ["a", "d"])
        #expect(Self.described(entries[1].value) == Self.described(entries[0].value))
        #expect(entries[1].value.location.line == 1)
    }

    @Test func errorsAreLocatedAndWorded() {
        #expect(Self.described(YAMLParser.parse("a: *missing\n", file: "t.yaml")) == "error t.yaml:1:4: error: malformed YAML: found undefined alias")
        #expect(
            Self.described(YAMLParser.parse("a: b\n---\nc: d\n", file: "t.yaml"))
                == "error t.yaml:2:1: error: malformed YAML: but found another document (expected a single document in the stream at line 1)")
    }

    @Test func aHostileNestingIsADiagnosticNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(
            Self.described(YAMLParser.parse(deep, file: "t.yaml"))
                == "error t.yaml:1:513: error: malformed YAML: collections nested deeper than 512 levels")
        let allowed = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(Self.described(YAMLParser.parse(allowed, file: "t.yaml")).hasPrefix("[@1:1 [@1:2"))
    }

    // MARK: - Comparing

    static func described(_ result: Result<YAMLNode?, Diagnostic>) -> String {
        switch result {
        case .success(let node): node.map(described) ?? "no document"
        case .failure(let diagnostic): "error \(diagnostic.description)"
        }
    }

    static func described(_ node: YAMLNode) -> String {
        let at = "@\(node.location.line):\(node.location.column)"
        switch node.kind {
        case .scalar(let text, let plain): return "\(plain ? "plain" : "styled")\(at)\(text.debugDescription)"
        case .sequence(let items): return "[\(at) " + items.map(described).joined(separator: ", ") + "]"
        case .mapping(let entries):
            let pairs = entries.map { "\($0.key.debugDescription)@\($0.keyLocation.line):\($0.keyLocation.column): \(described($0.value))" }
            return "{\(at) " + pairs.joined(separator: ", ") + "}"
        }
    }
}

/// How `YAMLParser` composed a document before, through Yams' node tree: the reference the
/// tests above compare with.
private enum YamsReference {
    static func parse(_ text: String, file: String) -> Result<YAMLNode?, Diagnostic> {
        do {
            guard let root = try Yams.compose(yaml: text, .basic, Constructor([:], [:], [:]), .utf8) else { return .success(nil) }
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
            var line = 1
            var column = 1
            for (index, scalar) in yaml.unicodeScalars.enumerated() where index < offset ?? 0 {
                if scalar == "\n" {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            }
            return Diagnostic(.error, "malformed YAML: \(problem)", at: SourceLocation(file: file, line: line, column: column))
        default:
            return Diagnostic(.error, "malformed YAML: \(error)", at: SourceLocation(file: file, line: 1, column: 1))
        }
    }
}
