import Foundation
import WireSpec

/// The files of one AsyncAPI document: the document itself and every sibling file its `$ref`s
/// reach, parsed with the location of every node, so a diagnostic names the file and line.
struct AsyncAPISource {
    /// A node and the file it is in (a `$ref` to a sibling file resolves in that file).
    struct Located {
        var node: YAMLNode
        var file: String
        /// The `$ref` this node was reached through, when it was (`#/components/schemas/market`).
        var reference: String?

        var location: SourceLocation { node.location }

        /// The value of `key` when this node is a mapping.
        subscript(_ key: String) -> Located? {
            guard case .mapping(let entries) = node.kind, let entry = entries.first(where: { $0.key == key }) else { return nil }
            return Located(node: entry.value, file: file)
        }

        /// The entries of a mapping, in document order (empty for anything else).
        var entries: [(key: String, keyLocation: SourceLocation, value: Located)] {
            guard case .mapping(let entries) = node.kind else { return [] }
            return entries.map { ($0.key, $0.keyLocation, Located(node: $0.value, file: file)) }
        }

        /// The items of a sequence (empty for anything else).
        var items: [Located] {
            guard case .sequence(let items) = node.kind else { return [] }
            return items.map { Located(node: $0, file: file) }
        }

        /// The text of a scalar.
        var text: String? {
            guard case .scalar(let text, _) = node.kind else { return nil }
            return text
        }

        var isMapping: Bool {
            if case .mapping = node.kind { return true }
            return false
        }
    }

    enum LoadError: Error, CustomStringConvertible {
        case unreadable(String, String)
        case malformed(Diagnostic)

        var description: String {
            switch self {
            case .unreadable(let path, let why): return "\(path): error: cannot read the AsyncAPI document: \(why)"
            case .malformed(let diagnostic): return diagnostic.description
            }
        }
    }

    /// The document's root.
    let root: Located
    /// Parsed files by path, the document's own among them.
    private var files: [String: YAMLNode] = [:]
    /// Every place a `$ref` led to, as `file#pointer`: what the import used.
    private(set) var followed: Set<String> = []

    /// Reads the document at `path` (YAML or JSON).
    init(path: String) throws(LoadError) {
        let node = try Self.parse(path)
        files[path] = node
        root = Located(node: node, file: path)
    }

    private static func parse(_ path: String) throws(LoadError) -> YAMLNode {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadable(path, error.localizedDescription)
        }
        switch YAMLParser.parse(text, file: path) {
        case .success(let node?): return node
        case .success(nil): throw .unreadable(path, "the file is empty")
        case .failure(let diagnostic): throw .malformed(diagnostic)
        }
    }

    /// Follows `node`'s `$ref` (and the `$ref`s it leads to) to the node it names: a JSON
    /// pointer in the same file (`#/components/schemas/x`) or in a sibling file
    /// (`common/schemas.yaml#/Thing`). Throws a diagnostic at the `$ref` when it leads nowhere.
    mutating func resolve(_ node: Located) throws(Diagnostic) -> Located {
        var current = node
        var seen: Set<String> = []
        while let reference = current["$ref"] {
            guard let text = reference.text else { throw Diagnostic(.error, "'$ref' must be a string", at: reference.location) }
            let parts = text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let file: String
            if parts[0].isEmpty {
                file = current.file
            } else {
                let directory = (current.file as NSString).deletingLastPathComponent
                file = ((directory.isEmpty ? parts[0] : "\(directory)/\(parts[0])") as NSString).standardizingPath
            }
            let key = "\(file)#\(parts.count > 1 ? parts[1] : "")"
            guard seen.insert(key).inserted else {
                throw Diagnostic(.error, "'$ref: \(text)' leads back to itself", at: reference.location)
            }
            if files[file] == nil {
                do throws(LoadError) {
                    files[file] = try Self.parse(file)
                } catch {
                    throw Diagnostic(.error, "'$ref: \(text)' names a file that cannot be read (\(error))", at: reference.location)
                }
            }
            var target = Located(node: files[file]!, file: file)
            for token in (parts.count > 1 ? parts[1] : "").split(separator: "/", omittingEmptySubsequences: true) {
                let name = token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                if case .sequence = target.node.kind, let index = Int(name), target.items.indices.contains(index) {
                    target = target.items[index]
                } else if let next = target[name] {
                    target = next
                } else {
                    throw Diagnostic(.error, "'$ref: \(text)' leads nowhere: no '\(name)' in \(file)", at: reference.location)
                }
            }
            target.reference = text
            followed.insert(key)
            current = target
        }
        return current
    }
}
