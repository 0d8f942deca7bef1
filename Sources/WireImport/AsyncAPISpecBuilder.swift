import Foundation
import WireSpec

/// Builds a spec from an AsyncAPI document: the header from `info`, `servers` and the channel,
/// the frames from channels, messages and operations, their types through `SchemaTranslator`.
struct AsyncAPISpecBuilder {
    typealias Located = AsyncAPISource.Located

    /// One frame found in the document.
    struct Frame {
        var direction: String
        var schema: MergedSchema
        /// The frame's name: its message's, or its `oneOf` variant's component.
        var messageName: String
        /// The message it came from (the key correlations and replies name).
        var messageKey: String
        var description: String?
        var examples: [Located]
        var location: SourceLocation
        /// The shapes of a frame whose fields depend on a second property: the cases of a union
        /// message (the `oneOf` variants of a message that fixes its own tag, or messages that share a tag).
        var cases: [Case] = []
        /// Whether its variants could be told apart by nothing and were joined (a warning said so).
        var joinedVariants = false
    }

    /// One case of a union message, with the name and description its type takes.
    struct Case {
        var schema: MergedSchema
        var name: String?
        var description: String?
    }

    /// An operation with a `reply`: which messages answer which.
    struct Exchange {
        var operation: String
        var location: SourceLocation
        var requests: [String]
        var replies: [String]
    }

    var translator: SchemaTranslator
    let options: AsyncAPIImporter.Options
    /// The document's examples, to check once the spec exists.
    var exampleSites: [ExampleCheck.Site] = []
    /// What `receive` and `send` mean: judged once, before the frames are read.
    var perspective: AsyncAPIImporter.Perspective = .provider
    /// Operations with replies, for the correlations they state.
    var exchanges: [Exchange] = []
    /// Each message's node, by its key (for its `correlationId`).
    var messageNodes: [String: Located] = [:]
    /// The frames (direction and tag value) each message became, by its key (for correlations).
    var framesByMessage: [String: [(direction: String, tag: String)]] = [:]
    var root: Located { translator.source.root }

    init(source: AsyncAPISource, options: AsyncAPIImporter.Options) {
        translator = SchemaTranslator(source: source)
        self.options = options
    }

    mutating func report(_ severity: Diagnostic.Severity, _ message: String, at location: SourceLocation) {
        translator.report(severity, message, at: location)
    }

    mutating func build() -> AsyncAPIImporter.Result {
        guard let version = root["asyncapi"]?.text, version.hasPrefix("3.") else {
            let found = root["asyncapi"]?.text.map { "'\($0)'" } ?? "no 'asyncapi' key"
            return AsyncAPIImporter.Result(
                spec: nil,
                diagnostics: [
                    Diagnostic(
                        .error, "this imports AsyncAPI 3 documents; found \(found) (convert a 2.x document with the AsyncAPI CLI's 'convert' first)",
                        at: root["asyncapi"]?.location ?? root.location)
                ])
        }
        var document: [(String, SpecYAML)] = []
        perspective = judgePerspective()
        let frames = collectFrames()
        let tag = tagField(frames)
        let header = protocolHeader(frames: frames, tag: tag)
        document.append(("protocol", .mapping(header)))
        document.append(("transport", .mapping(transport())))
        let errors = errorTable()
        document.append(("validation", .mapping(validation(defaultCode: errors.defaultCode))))
        document.append(("errors", .mapping(errors.entries)))
        let messages = self.messages(frames, tag: tag)
        let endpoints = self.endpoints()
        if !translator.types.isEmpty { document.append(("types", .mapping(translator.types))) }
        document.append(("messages", .mapping(messages)))
        let session = self.session(correlations: correlations())
        if !session.isEmpty { document.append(("session", .mapping(session))) }
        let rateLimits = self.rateLimits()
        if !rateLimits.isEmpty { document.append(("rateLimits", .mapping(rateLimits))) }
        if !endpoints.isEmpty { document.append(("endpoints", .mapping(endpoints))) }
        let constants = self.constants()
        if !constants.isEmpty { document.append(("constants", .mapping(constants))) }
        for key in root.entries.map(\.key) where !Self.topLevelKeys.contains(key) {
            if key.hasPrefix("x-") {
                report(
                    .warning, "extension '\(key)' is not one this import reads; it is left out", at: root.entries.first { $0.key == key }!.keyLocation
                )
            } else {
                report(.warning, "'\(key)' is not an AsyncAPI 3 key; it is left out", at: root.entries.first { $0.key == key }!.keyLocation)
            }
        }
        reportLeftOut()
        let withExamples = addingExamples(to: document)
        return AsyncAPIImporter.Result(spec: SpecYAML.mapping(withExamples).document, diagnostics: translator.diagnostics.sortedByLocation())
    }

    /// The document with the examples its own spec accepts; the others are reported.
    mutating func addingExamples(to document: [(String, SpecYAML)]) -> [(String, SpecYAML)] {
        guard !exampleSites.isEmpty, let spec = SpecLoader.check(yaml: SpecYAML.mapping(document).document, file: "imported.yaml").spec else {
            return document
        }
        let (passed, diagnostics) = ExampleCheck.check(exampleSites, against: spec)
        for diagnostic in diagnostics { translator.report(diagnostic.severity, diagnostic.message, at: diagnostic.location) }
        return document.map { key, value in
            guard key == "messages", case .mapping(let directions) = value else { return (key, value) }
            return (
                key,
                .mapping(
                    directions.map { direction, frames in
                        guard case .mapping(let entries) = frames else { return (direction, frames) }
                        return (
                            direction,
                            .mapping(
                                entries.map { tag, body in
                                    guard let examples = passed["\(direction) \(tag)"], case .mapping(let members) = body else { return (tag, body) }
                                    return (tag, .mapping(members + [("examples", .list(examples))]))
                                })
                        )
                    })
            )
        }
    }

    /// What the document states that no spec has a place for: components nothing uses, security
    /// schemes, `info` beyond the title, version and description, and the document's `id`.
    mutating func reportLeftOut() {
        for (kind, kindLocation, entries) in root["components"]?.entries ?? [] {
            if kind == "securitySchemes" {
                report(
                    .warning, "components 'securitySchemes' are not modelled (a spec describes frames, not how a connection authenticates); left out",
                    at: kindLocation)
                continue
            }
            for (name, location, _) in entries.entries {
                let pointer = "/components/\(kind)/" + name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
                guard !translator.source.followed.contains("\(root.file)#\(pointer)") else { continue }
                report(.warning, "component '\(kind)/\(name)' is used by no channel, operation or message; left out", at: location)
            }
        }
        for (key, location, _) in root["info"]?.entries ?? [] where !["title", "version", "description"].contains(key) {
            report(.note, "info '\(key)' has no place in a spec; left out", at: location)
        }
        if let id = root.entries.first(where: { $0.key == "id" }) {
            report(.note, "'id' (the application's identifier) has no place in a spec; left out", at: id.keyLocation)
        }
    }

    static let channelKeys: Set<String> = ["address", "messages", "title", "summary", "description", "servers", "tags", "externalDocs"]

    static let topLevelKeys: Set<String> = [
        "asyncapi", "id", "info", "servers", "defaultContentType", "channels", "operations", "components", "x-transport", "x-error-codes",
        "x-rate-limits", "x-constants", "x-session-rules", "x-validation", "x-endpoints",
    ]

    // MARK: Header

    mutating func protocolHeader(frames: [Frame], tag: String) -> [(String, SpecYAML)] {
        let info = root["info"]
        let title = info?["title"]?.text ?? "Imported"
        var name = options.name ?? title.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce(into: "") { $0.append($1) }
        name = name.split(separator: "_").joined(separator: "_")
        if name.first?.isNumber ?? true { name = "p_" + name }
        var version = 1
        if let text = info?["version"]?.text {
            if let major = Int(text.split(separator: ".").first ?? "") {
                version = major
                if text.contains(".") {
                    report(
                        .note, "version '\(text)' is imported as \(major), its major number (a spec's version is an integer)",
                        at: info!["version"]!.location)
                }
            } else {
                report(.warning, "version '\(text)' has no major number; imported as 1", at: info!["version"]!.location)
            }
        }
        var header: [(String, SpecYAML)] = [("name", .string(name)), ("title", .string(title)), ("version", .literal(String(version)))]
        header.append(("keyStyle", .string(keyStyle(frames))))
        header.append(("tagField", .string(tag)))
        if let description = info?["description"]?.text { header.append(("description", .string(description))) }
        return header
    }

    /// camelCase or snake_case when every property name follows it, mixed otherwise.
    func keyStyle(_ frames: [Frame]) -> String {
        var names: [String] = frames.flatMap { $0.schema.properties.map(\.name) }
        for (_, type) in translator.types {
            if case .mapping(let fields)? = type["fields"] { names += fields.map(\.0) }
        }
        if names.allSatisfy({ $0.range(of: "^[a-z][a-zA-Z0-9]*$", options: .regularExpression) != nil }) { return "camelCase" }
        if names.allSatisfy({ $0.range(of: "^[a-z][a-z0-9]*(_[a-z0-9]+)*$", options: .regularExpression) != nil }) { return "snake_case" }
        return "mixed"
    }

    mutating func transport() -> [(String, SpecYAML)] {
        if let ours = root["x-transport"], let kind = ours["kind"]?.text, let path = ours["path"]?.text {
            return [("kind", .string(kind)), ("path", .string(path))]
        }
        var path = "/"
        let channels = root["channels"]?.entries ?? []
        if let first = channels.first {
            path = first.value["address"]?.text ?? "/"
            if path.contains("{") {
                report(
                    .warning, "channel address '\(path)' has parameters; the spec's transport path is written as it is",
                    at: first.value["address"]!.location)
            }
            if !path.hasPrefix("/") { path = "/" + path }
            let addresses = Set(channels.compactMap { $0.value["address"]?.text })
            if addresses.count > 1 {
                report(
                    .note,
                    "the document has \(addresses.count) channel addresses; their messages are imported as frames on one connection at '\(path)'",
                    at: channels[1].keyLocation)
            }
        }
        for (name, _, channel) in channels {
            for (key, location, _) in translator.resolved(channel)?.entries ?? [] where !Self.channelKeys.contains(key) {
                let what =
                    key == "bindings"
                    ? "its bindings (a WebSocket binding's query and headers)" : key == "parameters" ? "its address parameters" : "'\(key)'"
                report(.warning, "channel '\(name)': \(what) are not modelled by the spec language; left out", at: location)
            }
        }
        for (name, location, server) in root["servers"]?.entries ?? [] {
            guard let resolved = translator.resolved(server) else { continue }
            for (key, keyLocation, _) in resolved.entries where ["security", "bindings", "variables"].contains(key) {
                report(.warning, "server '\(name)': '\(key)' is not modelled by the spec language; left out", at: keyLocation)
            }
            guard let scheme = resolved["protocol"]?.text else { continue }
            if !["ws", "wss"].contains(scheme.lowercased()) {
                report(
                    .warning, "server '\(name)' speaks '\(scheme)'; frames are imported as JSON over a WebSocket, the transport this tool models",
                    at: location)
            }
        }
        return [("kind", .string("websocket")), ("path", .string(path))]
    }

    /// The error codes: the document's `x-error-codes` (as `wire schema --asyncapi` writes them),
    /// or one code for any broken rule when it has none.
    mutating func errorTable() -> (defaultCode: String, entries: [(String, SpecYAML)]) {
        var entries: [(String, SpecYAML)] = []
        for item in root["x-error-codes"]?.items ?? [] {
            guard let code = item["code"]?.text else { continue }
            var body: [(String, SpecYAML)] = []
            for key in ["description", "httpStatus", "closes", "closeCode", "clientAction"] {
                if let value = item[key], !value.node.isNull { body.append((key, SpecYAML(value.node))) }
            }
            entries.append((code, .mapping(body)))
        }
        if let first = entries.first { return (first.0, entries) }
        report(
            .note, "the document states no error codes (AsyncAPI has no place for them); the spec gets one, 'invalid_frame', for any broken rule",
            at: root.location)
        return (
            "invalid_frame",
            [
                (
                    "invalid_frame",
                    .mapping([
                        ("description", .string("The frame breaks the protocol (added by wire import: the AsyncAPI document states no error codes)."))
                    ])
                )
            ]
        )
    }
}
