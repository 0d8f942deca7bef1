extension SpecReader {
    private static let documentKeys = [
        "wire", "protocol", "transport", "validation", "errors", "types", "messages", "session", "rateLimits", "endpoints", "constants", "flows",
    ]

    /// Reads a whole spec document. Returns a model even when there are errors (as complete as the
    /// errors allow) so the checker can report further problems in the same run; `nil` only when
    /// the document is not a mapping.
    func document(_ root: YAMLNode) -> ProtocolSpec? {
        guard let map = mapping(root, in: "the spec", allowedKeys: Self.documentKeys) else { return nil }
        if let node = map["wire"], let version = integer(node, "'wire' (the spec language version)"), version != 1 {
            error("this tool reads spec language version 1, but the spec declares 'wire: \(version)'", at: node.location)
        }
        var index = SpecIndex()

        let header = protocolHeader(require("protocol", in: map, context: "the spec"))
        index.keyStyle = header.keyStyle
        index.tagField = header.tagField
        let transport = require("transport", in: map, context: "the spec").flatMap(transport)

        let errorCodes = map["errors"].map(errorCodes) ?? []
        index.errorCodes = errorCodes.map(\.code)
        let validation = validationDefaults(map["validation"], index: index, at: map.node.location)

        if let typesNode = map["types"], case .mapping(let entries) = typesNode.kind {
            index.typeNames = entries.map(\.key)
            if let clash = entries.first(where: { $0.key == ProtocolSpec.errorCodeTypeName }) {
                error("'\(clash.key)' is the type of the error codes under 'errors' (an open enum of them); rename this type", at: clash.keyLocation)
            }
        }
        if !errorCodes.isEmpty { index.typeNames.append(ProtocolSpec.errorCodeTypeName) }
        var types = map["types"].map { self.types($0, index: index) } ?? []
        if !errorCodes.isEmpty {
            // The error table is also a type, so a field can carry an error code (an `error` frame's `code`).
            let values = errorCodes.map { EnumType.Value(value: $0.code, description: $0.description) }
            types.append(
                NamedType(
                    name: ProtocolSpec.errorCodeTypeName,
                    description: "One of the protocol's error codes (see the error codes table). Open: a code this version does not know is kept.",
                    kind: .enumeration(EnumType(values: values, open: true, isErrorCodeTable: true)),
                    location: map.keyLocation("errors") ?? map.node.location
                ))
        }
        readTypes = types
        let messages = require("messages", in: map, context: "the spec").map { self.messages($0, index: index) } ?? []
        let session = map["session"].flatMap { self.session($0, index: index, messages: messages) }
        let rateLimits = map["rateLimits"].map { self.rateLimits($0, index: index, messages: messages) } ?? []
        let endpoints = map["endpoints"].map { self.endpoints($0, index: index) } ?? []
        let constants = map["constants"].map(constants) ?? []
        let flows = map["flows"].map { self.flows($0, messages: messages) } ?? []

        // Missing parts were reported; stand-ins let the checker look at everything else in this run.
        return ProtocolSpec(
            name: header.name ?? "unnamed", title: header.title ?? "Unnamed", version: header.version ?? 0,
            description: header.description, keyStyle: header.keyStyle, tagField: header.tagField,
            transport: transport ?? Transport(kind: .websocket, path: "/"),
            defaultErrorCode: validation?.errorCode ?? "", sizeErrorCode: validation?.sizeErrorCode ?? "",
            notJSON: validation?.notJSON, notAFrame: validation?.notAFrame, unknownServerFrames: validation?.unknownServerFrames ?? .reject,
            types: types,
            messages: messages, errorCodes: errorCodes, rateLimits: rateLimits, endpoints: endpoints,
            constants: constants, session: session, flows: flows, sourceFile: file
        )
    }

    private struct Header {
        var name: String?
        var title: String?
        var version: Int?
        var description: String?
        var keyStyle = KeyStyle.camelCase
        var tagField = "type"
    }

    private func protocolHeader(_ node: YAMLNode?) -> Header {
        var header = Header()
        let context = "'protocol'"
        guard let node, let map = mapping(node, in: context, allowedKeys: ["name", "title", "version", "description", "keyStyle", "tagField"]) else {
            return header
        }
        header.name = require("name", in: map, context: context).flatMap { identifier($0, "'name' in \(context)") }
        header.title = require("title", in: map, context: context).flatMap { string($0, "'title' in \(context)") }
        header.version = require("version", in: map, context: context).flatMap { nonNegativeInteger($0, "'version' in \(context)") }
        header.description = map["description"].flatMap { string($0, "'description' in \(context)") }
        header.keyStyle =
            map["keyStyle"].flatMap { oneOf($0, "'keyStyle' in \(context)", KeyStyle.self, allowed: [.camelCase, .snakeCase, .mixed]) } ?? .camelCase
        header.tagField = map["tagField"].flatMap { string($0, "'tagField' in \(context)") } ?? "type"
        return header
    }

    private func transport(_ node: YAMLNode) -> Transport? {
        let context = "'transport'"
        guard let map = mapping(node, in: context, allowedKeys: ["kind", "path", "method", "defaultPort", "description"]),
            let kind = require("kind", in: map, context: context).flatMap({
                oneOf($0, "'kind' in \(context)", Transport.Kind.self, allowed: [.websocket, .sse, .http])
            }),
            let path = require("path", in: map, context: context).flatMap({ string($0, "'path' in \(context)") })
        else { return nil }
        let port = map["defaultPort"].flatMap { node -> Int? in
            guard let port = integer(node, "'defaultPort' in \(context)") else { return nil }
            guard (1...65535).contains(port) else {
                error("'defaultPort' in \(context) must be between 1 and 65535, found \(port)", at: node.location)
                return nil
            }
            return port
        }
        return Transport(
            kind: kind, path: path, method: map["method"].flatMap { string($0, "'method' in \(context)") },
            defaultPort: port, description: map["description"].flatMap { string($0, "'description' in \(context)") }
        )
    }

    private func validationDefaults(
        _ node: YAMLNode?, index: SpecIndex, at location: SourceLocation
    ) -> (
        errorCode: String, sizeErrorCode: String, notJSON: Answer?, notAFrame: Answer?, unknownServerFrames: UnknownFrames
    )? {
        let context = "'validation'"
        guard let node else {
            error(
                "missing required key 'validation' in the spec: name the error codes for broken rules ('errorCode') and sizes ('sizeErrorCode')",
                at: location)
            return nil
        }
        if case .mapping(let entries) = node.kind, let old = entries.first(where: { $0.key == "malformedFrame" }) {
            error(
                "'malformedFrame' in \(context) is now two answers: 'notJSON' (bytes that are not JSON) and 'notAFrame' (JSON that is not an "
                    + "object " + "with a string tag)",
                at: old.keyLocation)
        }
        let keys = ["errorCode", "sizeErrorCode", "notJSON", "notAFrame", "unknownServerFrames", "malformedFrame"]
        guard let map = mapping(node, in: context, allowedKeys: keys),
            let code = require("errorCode", in: map, context: context).flatMap({ errorCodeReference($0, "'errorCode' in \(context)", index: index) })
        else { return nil }
        let sizeCode = map["sizeErrorCode"].flatMap { errorCodeReference($0, "'sizeErrorCode' in \(context)", index: index) } ?? code
        let notJSON = map["notJSON"].flatMap { answer($0, "'notJSON' in \(context)", index: index, maySendNothing: true) }
        let notAFrame = map["notAFrame"].flatMap { answer($0, "'notAFrame' in \(context)", index: index, maySendNothing: true) }
        let unknownServerFrames =
            map["unknownServerFrames"].flatMap {
                oneOf($0, "'unknownServerFrames' in \(context)", UnknownFrames.self, allowed: UnknownFrames.allCases)
            } ?? .reject
        return (code, sizeCode, notJSON, notAFrame, unknownServerFrames)
    }
}
