import Foundation
import WireRuntime

extension SpecReader {
    // MARK: Error codes

    /// Reads `errors:`.
    func errorCodes(_ node: YAMLNode) -> [ErrorCode] {
        guard let entries = entries(node, in: "'errors'") else { return [] }
        return entries.compactMap { entry in
            let context = "error code '\(entry.key)'"
            guard let map = mapping(entry.value, in: context, allowedKeys: ["description", "httpStatus", "closes", "closeCode", "clientAction"])
            else { return nil }
            var closes = CloseBehavior.never
            if let node = map["closes"] {
                if case .scalar(let text, true) = node.kind, case .bool(let flag) = YAMLScalar.resolve(text) {
                    closes = flag ? .always : .never
                } else if let behavior = oneOf(node, "'closes' in \(context)", CloseBehavior.self, allowed: [.always, .never, .sometimes]) {
                    closes = behavior
                }
            }
            let httpStatus = map["httpStatus"].flatMap { node -> Int? in
                guard let status = integer(node, "'httpStatus' in \(context)") else { return nil }
                guard (100...599).contains(status) else {
                    error("'httpStatus' in \(context) must be an HTTP status between 100 and 599, found \(status)", at: node.location)
                    return nil
                }
                return status
            }
            let closeCode = map["closeCode"].flatMap { closeCodeValue($0, "'closeCode' in \(context)") }
            if closes != .never, closeCode == nil {
                error("\(context) closes the connection but gives no 'closeCode'", at: entry.keyLocation)
            }
            return ErrorCode(
                code: entry.key, description: map["description"].flatMap { string($0, "'description' in \(context)") },
                httpStatus: httpStatus, closes: closes, closeCode: closeCode,
                clientAction: map["clientAction"].flatMap { string($0, "'clientAction' in \(context)") }, location: entry.keyLocation
            )
        }
    }

    // MARK: Rate limits

    /// Reads `rateLimits:`.
    func rateLimits(_ node: YAMLNode, index: SpecIndex, messages: [Message]) -> [RateLimit] {
        guard let entries = entries(node, in: "'rateLimits'") else { return [] }
        let keys = ["description", "frames", "violations", "limit", "window", "scope", "answer", "clientAction"]
        return entries.compactMap { entry in
            let context = "rate limit '\(entry.key)'"
            guard let map = mapping(entry.value, in: context, allowedKeys: keys) else { return nil }
            let counts: RateLimit.Counted?
            switch (map["frames"], map["violations"]) {
            case (let frames?, nil):
                let refs = (stringList(frames, "'frames' in \(context)") ?? []).map { text, location in
                    messageRef(YAMLNode(kind: .scalar(text, plain: false), location: location), "'frames' in \(context)", messages: messages)
                }
                counts = refs.contains(where: { $0 == nil }) ? nil : .frames(refs.compactMap { $0 })
            case (nil, let violations?):
                let codes = (stringList(violations, "'violations' in \(context)") ?? []).map { text, location in
                    errorCodeReference(YAMLNode(kind: .scalar(text, plain: false), location: location), "'violations' in \(context)", index: index)
                }
                counts = codes.contains(where: { $0 == nil }) ? nil : .violations(codes.compactMap { $0 })
            case (.some, .some):
                error("\(context) gives both 'frames' and 'violations'; a limit counts one of them", at: entry.keyLocation)
                counts = nil
            case (nil, nil):
                error("\(context) needs 'frames' (the messages it counts) or 'violations' (the error codes it counts)", at: entry.keyLocation)
                counts = nil
            }
            let limit = require("limit", in: map, context: context).flatMap { positiveInteger($0, "'limit' in \(context)") }
            let window = map["window"].flatMap { duration($0, "'window' in \(context)") }
            let scope = map["scope"].flatMap { identifier($0, "'scope' in \(context)") }.map(RateLimitScope.init(rawValue:)) ?? .connection
            // A limit on server frames only has nobody to answer it; every other limit says what the server answers.
            let countsServerFramesOnly: Bool
            if case .frames(let refs)? = counts {
                countsServerFramesOnly = refs.allSatisfy { $0.direction == .server }
            } else {
                countsServerFramesOnly = false
            }
            let answer: Answer?
            if countsServerFramesOnly {
                if let node = map["answer"] {
                    error(
                        "\(context) counts only server frames, which nobody answers; remove 'answer' (the server must not send more)",
                        at: node.location)
                }
                answer = nil
            } else {
                answer = require("answer", in: map, context: context).flatMap { self.answer($0, "'answer' in \(context)", index: index) }
                if answer == nil { return nil }
            }
            guard let counts, let limit else { return nil }
            return RateLimit(
                name: entry.key, description: map["description"].flatMap { string($0, "'description' in \(context)") },
                counts: counts, limit: limit, windowMilliseconds: window, scope: scope, answer: answer,
                clientAction: map["clientAction"].flatMap { string($0, "'clientAction' in \(context)") }, location: entry.keyLocation
            )
        }
    }

    // MARK: Constants

    private static let constantKinds: [Constant.Kind] = [.duration, .bytes, .count, .number, .string]

    /// Reads `constants:`; each is `{<kind>: value, description: ..., providerLimit: true|false}`.
    func constants(_ node: YAMLNode) -> [Constant] {
        guard let entries = entries(node, in: "'constants'") else { return [] }
        return entries.compactMap { entry in
            let context = "constant '\(entry.key)'"
            let keys = ["description", "providerLimit"] + Self.constantKinds.map(\.rawValue)
            guard let map = mapping(entry.value, in: context, allowedKeys: keys) else { return nil }
            let kinds = Self.constantKinds.filter { map.has($0.rawValue) }
            guard kinds.count == 1, let kind = kinds.first, let valueNode = map[kind.rawValue] else {
                let list = Self.constantKinds.map { "'\($0.rawValue)'" }.joined(separator: ", ")
                error("\(context) needs exactly one of \(list)", at: entry.keyLocation)
                return nil
            }
            let what = "'\(kind.rawValue)' in \(context)"
            let value: SpecValue?
            switch kind {
            case .duration: value = duration(valueNode, what).map(SpecValue.integer)
            case .bytes: value = byteCount(valueNode, what).map(SpecValue.integer)
            case .count: value = nonNegativeInteger(valueNode, what).map(SpecValue.integer)
            case .number: value = number(valueNode, what).map(SpecValue.number)
            case .string: value = string(valueNode, what).map(SpecValue.string)
            }
            guard let value, case .scalar(let written, _) = valueNode.kind else { return nil }
            return Constant(
                name: entry.key, description: map["description"].flatMap { string($0, "'description' in \(context)") },
                kind: kind, value: value, written: written,
                providerLimit: map["providerLimit"].flatMap { bool($0, "'providerLimit' in \(context)") } ?? false, location: entry.keyLocation
            )
        }
    }

    /// A duration such as `500ms`, `30s`, `5m`, `1h` or `365d`, in milliseconds.
    func duration(_ node: YAMLNode, _ what: String) -> Int? {
        let units: [(String, Int)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000)]
        return quantity(node, what, units: units, example: "a duration such as 500ms, 30s, 5m, 1h or 365d")
    }

    /// A byte count such as `4096`, `64KiB`, `100MiB` or `1GiB`.
    func byteCount(_ node: YAMLNode, _ what: String) -> Int? {
        let units: [(String, Int)] = [
            ("", 1), ("B", 1), ("KiB", 1024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("KB", 1000), ("MB", 1_000_000), ("GB", 1_000_000_000),
        ]
        return quantity(node, what, units: units, example: "a size such as 4096, 64KiB or 100MiB")
    }

    private func quantity(_ node: YAMLNode, _ what: String, units: [(String, Int)], example: String) -> Int? {
        guard case .scalar(let text, _) = node.kind else {
            error("expected \(example) for \(what), found \(node.kindDescription)", at: node.location)
            return nil
        }
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        let unit = text.dropFirst(digits.count)
        guard !digits.isEmpty, let number = Int(digits), let factor = units.first(where: { $0.0 == unit })?.1 else {
            error("expected \(example) for \(what), found '\(text)'", at: node.location)
            return nil
        }
        return number * factor
    }

    // MARK: Endpoints

    /// Reads `endpoints:`.
    func endpoints(_ node: YAMLNode, index: SpecIndex) -> [Endpoint] {
        guard let entries = entries(node, in: "'endpoints'") else { return [] }
        let keys = ["description", "method", "path", "auth", "parameters", "query", "request", "response", "errors", "errorBody"]
        return entries.compactMap { entry in
            let context = "endpoint '\(entry.key)'"
            guard let map = mapping(entry.value, in: context, allowedKeys: keys) else { return nil }
            let method = require("method", in: map, context: context).flatMap { node -> HTTPMethod? in
                guard let text = string(node, "'method' in \(context)") else { return nil }
                guard let method = HTTPMethod(rawValue: text) else {
                    let methods = HTTPMethod.allCases.map(\.rawValue)
                    error("'method' in \(context) must be one of \(methods.joined(separator: ", ")), found '\(text)'", at: node.location)
                    return nil
                }
                return method
            }
            let pathNode = require("path", in: map, context: context)
            let path = pathNode.flatMap { string($0, "'path' in \(context)") }
            let auth = map["auth"].flatMap { oneOf($0, "'auth' in \(context)", Endpoint.Auth.self, allowed: [.none, .bearer]) } ?? .none
            let parameters = map["parameters"].map { fields($0, owner: context, index: index, isMessage: false) } ?? []
            if let path, let pathNode {
                checkPathParameters(path, parameters: parameters, context: context, at: pathNode.location)
                if path.utf8.contains(UInt8(ascii: "?")) {
                    error("'path' in \(context) has a query; declare query parameters under 'query' instead", at: pathNode.location)
                }
            }
            let query = map["query"].map { fields($0, owner: "the query of \(context)", index: index, isMessage: false) } ?? []
            for parameter in query where parameters.contains(where: { $0.name == parameter.name }) {
                error("query parameter '\(parameter.name)' of \(context) is also a path parameter; give it another name", at: parameter.location)
            }
            let request = map["request"].flatMap { body($0, "'request' in \(context)", index: index, allowsStatus: false).body }
            let responseNode = require("response", in: map, context: context)
            let response = responseNode.map { body($0, "'response' in \(context)", index: index, allowsStatus: true) }
            let errors = (map["errors"].flatMap { stringList($0, "'errors' in \(context)") } ?? []).compactMap { text, location in
                errorCodeReference(YAMLNode(kind: .scalar(text, plain: false), location: location), "'errors' in \(context)", index: index)
            }
            let errorBody = map["errorBody"].flatMap { typeRef($0, in: context, index: index) }
            guard let method, let path, let response else { return nil }
            return Endpoint(
                name: entry.key, description: map["description"].flatMap { string($0, "'description' in \(context)") },
                method: method, path: path, auth: auth, parameters: parameters, query: query, request: request,
                response: Endpoint.Response(status: response.status ?? 200, description: response.description, body: response.body),
                errors: errors, errorBody: errorBody, location: entry.keyLocation
            )
        }
    }

    private func checkPathParameters(_ path: String, parameters: [Field], context: String, at location: SourceLocation) {
        var placeholders: [String] = []
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            placeholders.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        for name in placeholders where !parameters.contains(where: { $0.name == name }) {
            error("'path' in \(context) has the placeholder '{\(name)}' but 'parameters' does not declare '\(name)'", at: location)
        }
        for parameter in parameters where !placeholders.contains(parameter.name) {
            error("parameter '\(parameter.name)' of \(context) does not appear as '{\(parameter.name)}' in its path", at: parameter.location)
        }
    }

    private func body(
        _ node: YAMLNode, _ what: String, index: SpecIndex, allowsStatus: Bool
    ) -> (status: Int?, description: String?, body: Endpoint.Body?) {
        let keys = (allowsStatus ? ["status"] : []) + ["description", "json", "multipart", "binary", "contentType"]
        guard let map = mapping(node, in: what, allowedKeys: keys) else { return (nil, nil, nil) }
        let status = map["status"].flatMap { integer($0, "'status' in \(what)") }
        let description = map["description"].flatMap { string($0, "'description' in \(what)") }
        let kinds = ["json", "multipart", "binary"].filter(map.has)
        if kinds.count > 1 {
            error("\(what) gives more than one of 'json', 'multipart' and 'binary'", at: node.location)
            return (status, description, nil)
        }
        if let json = map["json"] {
            return (status, description, typeRef(json, in: what, index: index).map(Endpoint.Body.json))
        }
        if let multipart = map["multipart"] {
            let parts = (entries(multipart, in: "'multipart' in \(what)") ?? []).compactMap { entry -> Endpoint.Part? in
                let partContext = "part '\(entry.key)' of \(what)"
                guard let part = mapping(entry.value, in: partContext, allowedKeys: ["description", "optional", "file"]) else { return nil }
                return Endpoint.Part(
                    name: entry.key, description: part["description"].flatMap { string($0, "'description' in \(partContext)") },
                    required: !(part["optional"].flatMap { bool($0, "'optional' in \(partContext)") } ?? false),
                    isFile: part["file"].flatMap { bool($0, "'file' in \(partContext)") } ?? true
                )
            }
            return (status, description, .multipart(parts))
        }
        if let binary = map["binary"], bool(binary, "'binary' in \(what)") == true {
            return (status, description, .binary(contentType: map["contentType"].flatMap { string($0, "'contentType' in \(what)") }))
        }
        return (status, description, nil)
    }
}
