/// Where a value sits inside a frame, printed as `$.attachments[0].data`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
        /// The key of a map entry itself rather than its value, printed with a trailing `~`
        /// (`$.cursors["Bad key"]~`), as JSONPath-Plus writes property names.
        case keyName(String)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// The frame itself, `$`.
    public static let root = JSONPath()

    /// This path followed by an object key.
    @inlinable public func appending(_ key: String) -> JSONPath {
        var copy = self
        copy.components.append(.key(key))
        return copy
    }

    /// This path followed by the name of an object key (the key, not its value).
    @inlinable public func appendingKeyName(_ key: String) -> JSONPath {
        var copy = self
        copy.components.append(.keyName(key))
        return copy
    }

    /// This path followed by an array index.
    @inlinable public func appending(_ index: Int) -> JSONPath {
        var copy = self
        copy.components.append(.index(index))
        return copy
    }

    /// `$`, `$.deviceInfo.model`, `$.attachments[1].data`, `$["odd key"]`.
    public var description: String {
        var text = "$"
        for component in components {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key), .keyName(let key):
                if let first = key.unicodeScalars.first, first.properties.isAlphabetic || first == "_",
                    key.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_" })
                {
                    text += "." + key
                } else {
                    text += "[" + JSONWriter.string(.string(key)) + "]"
                }
                if case .keyName = component { text += "~" }
            }
        }
        return text
    }
}
