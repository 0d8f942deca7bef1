import WireSpec

/// The `x-` extensions `wire schema --asyncapi` writes for what AsyncAPI has no place for, read
/// back: `x-rate-limits`, `x-validation`, `x-endpoints` and `x-constants` (`x-transport` and
/// `x-error-codes` are read with the header, `x-session-rules` in AsyncAPISpecBuilder+Session).
extension AsyncAPISpecBuilder {
    /// `rateLimits`, from `x-rate-limits`.
    mutating func rateLimits() -> [(String, SpecYAML)] {
        var result: [(String, SpecYAML)] = []
        for item in root["x-rate-limits"]?.items ?? [] {
            guard let name = item["name"]?.text else {
                report(.warning, "an x-rate-limits entry without a 'name' is left out", at: item.location)
                continue
            }
            var body: [(String, SpecYAML)] = []
            for key in ["description", "frames", "violations", "limit"] {
                if let value = item[key], !value.node.isNull { body.append((key, SpecYAML(value.node))) }
            }
            if let window = item["windowMilliseconds"]?.text, let milliseconds = Int(window) {
                body.append(("window", .string(Self.duration(milliseconds: milliseconds))))
            }
            if let scope = item["scope"]?.text { body.append(("scope", .string(scope))) }
            if let answer = item["answer"], answer.isMapping {
                let entries = answer.entries.filter { !$0.value.node.isNull }.map { ($0.key, SpecYAML($0.value.node)) }
                body.append(("answer", .mapping(entries)))
            }
            if let action = item["clientAction"], !action.node.isNull { body.append(("clientAction", SpecYAML(action.node))) }
            result.append((name, .mapping(body)))
        }
        return result
    }

    /// `constants`, from `x-constants`: each as it was written (`64KiB`, `30s`).
    mutating func constants() -> [(String, SpecYAML)] {
        var result: [(String, SpecYAML)] = []
        for item in root["x-constants"]?.items ?? [] {
            guard let name = item["name"]?.text, let kind = item["kind"]?.text, let value = item["written"] ?? item["value"] else {
                report(.warning, "an x-constants entry needs 'name', 'kind' and 'written'; left out", at: item.location)
                continue
            }
            // Written as it was in the spec: `64KiB`, `30s`, or a bare count.
            let written = value.text.map { text in Int(text) != nil ? SpecYAML.literal(text) : .string(text) } ?? SpecYAML(value.node)
            var body: [(String, SpecYAML)] = [(kind, written)]
            if let description = item["description"], !description.node.isNull { body.append(("description", SpecYAML(description.node))) }
            if item["providerLimit"]?.text == "true" { body.append(("providerLimit", .literal("true"))) }
            result.append((name, .mapping(body)))
        }
        return result
    }

    /// `validation`, from `x-validation` (the default code, the size code, the answers to bytes
    /// that are not JSON and to JSON that is not a frame, unknown server frames); without it, the
    /// first error code answers every broken rule.
    mutating func validation(defaultCode: String) -> [(String, SpecYAML)] {
        guard let validation = root["x-validation"], validation.isMapping else { return [("errorCode", .string(defaultCode))] }
        var result: [(String, SpecYAML)] = [("errorCode", .string(validation["errorCode"]?.text ?? defaultCode))]
        for key in ["sizeErrorCode", "unknownServerFrames"] {
            if let value = validation[key]?.text, !(validation[key]?.node.isNull ?? true) { result.append((key, .string(value))) }
        }
        for key in ["notJSON", "notAFrame"] {
            if let answer = validation[key], answer.isMapping { result.append((key, Self.compacted(answer, dropping: []))) }
        }
        return result
    }

    /// `endpoints`, from `x-endpoints`: each in the spec's words, its types read from their schemas
    /// (so they join `types`).
    mutating func endpoints() -> [(String, SpecYAML)] {
        var result: [(String, SpecYAML)] = []
        for item in root["x-endpoints"]?.items ?? [] {
            guard let name = item["name"]?.text else {
                report(.warning, "an x-endpoints entry without a 'name' is left out", at: item.location)
                continue
            }
            var body: [(String, SpecYAML)] = []
            for key in ["description", "method", "path", "auth"] {
                if let value = item[key]?.text { body.append((key, .string(value))) }
            }
            for key in ["parameters", "query"] {
                guard let fields = item[key]?.entries, !fields.isEmpty else { continue }
                var entries: [(String, SpecYAML)] = []
                for (field, _, entry) in fields {
                    guard let schema = entry["schema"] else { continue }
                    let type = translator.fieldType(schema, context: "\(name) \(field)")
                    var members: [(String, SpecYAML)] = [("type", .string(type.type))] + type.constraints
                    if entry["optional"]?.text == "true" { members.append(("optional", .literal("true"))) }
                    if let description = type.description ?? schema["description"]?.text { members.append(("description", .string(description))) }
                    entries.append((field, .mapping(members)))
                }
                body.append((key, .mapping(entries)))
            }
            if let request = item["request"] { body.append(("request", .mapping(endpointBody(request, context: "\(name) request")))) }
            if let response = item["response"] { body.append(("response", .mapping(endpointBody(response, context: "\(name) response")))) }
            if let errors = item["errors"] { body.append(("errors", SpecYAML(errors.node))) }
            if let errorBody = item["errorBody"] {
                body.append(("errorBody", .string(translator.fieldType(errorBody, context: "\(name) error").type)))
            }
            result.append((name, .mapping(body)))
        }
        return result
    }

    /// A request or response: its status and description, and a JSON (its type), multipart or binary body.
    private mutating func endpointBody(_ node: Located, context: String) -> [(String, SpecYAML)] {
        var body: [(String, SpecYAML)] = []
        if let status = node["status"]?.text { body.append(("status", .literal(status))) }
        if let description = node["description"]?.text { body.append(("description", .string(description))) }
        if let json = node["json"] { body.append(("json", .string(translator.fieldType(json, context: context).type))) }
        if let parts = node["multipart"] { body.append(("multipart", SpecYAML(parts.node))) }
        if node["binary"]?.text == "true" { body.append(("binary", .literal("true"))) }
        if let contentType = node["contentType"]?.text { body.append(("contentType", .string(contentType))) }
        return body
    }

    /// A window in the largest unit that divides it: `60000` → `1m`.
    static func duration(milliseconds: Int) -> String {
        for (unit, size) in [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)] where milliseconds % size == 0 && milliseconds > 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }
}
