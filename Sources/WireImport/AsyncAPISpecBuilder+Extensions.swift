import WireSpec

/// The `x-` extensions `wire schema --asyncapi` writes for what AsyncAPI has no place for, read
/// back: `x-rate-limits` and `x-constants` (`x-transport` and `x-error-codes` are read with the
/// header).
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

    /// A window in the largest unit that divides it: `60000` → `1m`.
    static func duration(milliseconds: Int) -> String {
        for (unit, size) in [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)] where milliseconds % size == 0 && milliseconds > 0 {
            return "\(milliseconds / size)\(unit)"
        }
        return "\(milliseconds)ms"
    }
}
