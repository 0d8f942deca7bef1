import Foundation
import WireSpec

/// `wire import asyncapi`: reads an AsyncAPI 3.0 document and writes a spec in the spec language.
///
/// Channels and their messages become frames; operations say who sends them. An AsyncAPI
/// document describes one application: for a provider, what it `receive`s clients send and what
/// it `send`s servers send; for a client, the other way round (see ``Perspective``). A
/// message whose payload is a `oneOf` of tagged objects becomes a frame per object. The field
/// that tells frames apart is found (a property every frame fixes to its own string) or given.
/// Whatever cannot be carried over faithfully is a diagnostic at the document's file:line.
public enum AsyncAPIImporter {
    /// The application an AsyncAPI document describes, which decides what `send` and `receive` mean.
    public enum Perspective: String, Sendable, CaseIterable {
        /// The server: `receive` is a client frame, `send` a server frame.
        case provider
        /// A client (as Kraken's document is written): `send` is a client frame, `receive` a server frame.
        case client
    }

    /// What the import was told beyond the document.
    public struct Options: Sendable {
        /// The property that tells frames apart, when the document leaves it to be found.
        public var tagField: String?
        /// The protocol's machine name, when not the one made from the document's title.
        public var name: String?
        /// The application the document describes; `nil`: judged from its operations (a note says how).
        public var describes: Perspective?

        /// Options with nothing given.
        public init(tagField: String? = nil, name: String? = nil, describes: Perspective? = nil) {
            self.tagField = tagField
            self.name = name
            self.describes = describes
        }
    }

    /// An import's result: the spec's text (when the document could be read) and every diagnostic.
    public struct Result: Sendable {
        /// The spec in the spec language, `nil` when the document could not be read at all.
        public var spec: String?
        /// Problems found, at the AsyncAPI document's file:line (or the written spec's, for what it breaks).
        public var diagnostics: [Diagnostic]
    }

    /// Imports the document at `path`.
    public static func importDocument(atPath path: String, options: Options = Options()) -> Result {
        let source: AsyncAPISource
        do {
            source = try AsyncAPISource(path: path)
        } catch {
            switch error {
            case .malformed(let diagnostic): return Result(spec: nil, diagnostics: [diagnostic])
            case .unreadable(let file, let why):
                return Result(
                    spec: nil,
                    diagnostics: [Diagnostic(.error, "cannot read the AsyncAPI document: \(why)", at: SourceLocation(file: file, line: 1, column: 1))]
                )
            }
        }
        var builder = AsyncAPISpecBuilder(source: source, options: options)
        return builder.build()
    }
}
