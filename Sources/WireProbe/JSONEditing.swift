import WireRuntime

/// One step into a JSON value: an object's key or an array's index.
enum JSONStep: Sendable, Hashable, CustomStringConvertible {
    case key(String)
    case index(Int)

    var description: String {
        switch self {
        case .key(let key): return key
        case .index(let index): return "[\(index)]"
        }
    }
}

extension [JSONStep] {
    /// The path as a report shows it: `deviceInfo.platform`, `attachments[0].data`.
    var dotted: String {
        var text = ""
        for step in self {
            if case .key = step, !text.isEmpty { text += "." }
            text += step.description
        }
        return text
    }
}

extension JSONValue {
    /// The value at `path`, if there is one.
    func value(at path: some Collection<JSONStep>) -> JSONValue? {
        guard let step = path.first else { return self }
        switch (step, self) {
        case (.key(let key), .object(let members)): return members[key]?.value(at: path.dropFirst())
        case (.index(let index), .array(let items)) where items.indices.contains(index): return items[index].value(at: path.dropFirst())
        default: return nil
        }
    }

    /// This value with `replacement` at `path` (`nil` removes an object's key).
    func setting(_ path: some Collection<JSONStep>, to replacement: JSONValue?) -> JSONValue {
        guard let step = path.first else { return replacement ?? .null }
        let rest = path.dropFirst()
        switch (step, self) {
        case (.key(let key), .object(var members)):
            if rest.isEmpty {
                members[key] = replacement
            } else if let inner = members[key] {
                members[key] = inner.setting(rest, to: replacement)
            }
            return .object(members)
        case (.index(let index), .array(var items)) where items.indices.contains(index):
            if rest.isEmpty, replacement == nil {
                items.remove(at: index)
            } else {
                items[index] = items[index].setting(rest, to: replacement)
            }
            return .array(items)
        default: return self
        }
    }

    /// The frame as text.
    var text: String { JSONWriter.string(self) }
}
