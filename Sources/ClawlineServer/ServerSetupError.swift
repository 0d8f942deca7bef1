/// A server that cannot start: what is wrong and what to do about it.
public struct ServerSetupError: Error, Sendable, CustomStringConvertible {
    /// The explanation.
    public var description: String

    /// An error with its explanation.
    public init(_ description: String) { self.description = description }
}
