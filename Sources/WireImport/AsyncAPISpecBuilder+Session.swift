import WireSpec

/// `session`, from the `x-session-rules` `wire schema --asyncapi` writes: its lists of named rules
/// become the spec's mappings by name, every answer is written out in full (`{error, close,
/// closeCode}`, as the export resolved it) and empty or `null` entries are left to their defaults.
extension AsyncAPISpecBuilder {
    /// The `session` section: the exported rules, then the correlations replies state.
    mutating func session(correlations: [(String, SpecYAML)]) -> [(String, SpecYAML)] {
        var session: [(String, SpecYAML)] = []
        let rules = root["x-session-rules"]
        if let flags = rules?["flags"]?.entries, !flags.isEmpty {
            session.append(("flags", .mapping(flags.map { ($0.key, .string($0.value.node.isNull ? "" : $0.value.text ?? "")) })))
        }
        var exportedCorrelations: [(String, SpecYAML)] = []
        for key in ["phases", "transitions", "guards", "correlations", "uniqueness", "runs"] {
            let items = rules?[key]?.items ?? []
            if key == "transitions" {
                if !items.isEmpty { session.append((key, .list(items.map { Self.compacted($0, dropping: []) }))) }
                continue
            }
            var named: [(String, SpecYAML)] = []
            for item in items {
                guard let name = item["name"]?.text else {
                    report(.warning, "an x-session-rules '\(key)' entry without a 'name' is left out", at: item.location)
                    continue
                }
                named.append((name, Self.compacted(item, dropping: ["name"])))
            }
            if key == "correlations" {
                exportedCorrelations = named
            } else if !named.isEmpty {
                session.append((key, .mapping(named)))
            }
        }
        let names = Set(exportedCorrelations.map(\.0))
        let allCorrelations = exportedCorrelations + correlations.filter { !names.contains($0.0) }
        if !allCorrelations.isEmpty {
            // Correlations go after guards, as the spec language orders its session rules.
            let index = session.firstIndex { ["uniqueness", "runs"].contains($0.0) } ?? session.count
            session.insert(("correlations", .mapping(allCorrelations)), at: index)
        }
        return session
    }

    /// A mapping without the keys in `dropping`, without `null`, empty lists, empty mappings and
    /// `initial: false` (the defaults), at any depth.
    static func compacted(_ node: Located, dropping: Set<String>) -> SpecYAML {
        guard node.isMapping else { return SpecYAML(node.node) }
        var entries: [(String, SpecYAML)] = []
        for (key, _, value) in node.entries where !dropping.contains(key) && !value.node.isNull {
            if key == "initial", value.text == "false" { continue }
            switch value.node.kind {
            case .sequence(let items) where items.isEmpty: continue
            case .mapping(let members) where members.isEmpty: continue
            default: entries.append((key, compacted(value, dropping: [])))
            }
        }
        return .mapping(entries)
    }
}
