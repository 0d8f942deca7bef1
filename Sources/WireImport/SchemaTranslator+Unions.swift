import WireSpec

/// `oneOf`/`anyOf`: tagged unions and one-ofs, their case types, and the property that tags them.
extension SchemaTranslator {
    /// A `oneOf`/`anyOf` field: a tagged union when every variant is an object with a `const`
    /// on one shared property, a one-of tried in order otherwise.
    mutating func unionType(_ variants: [AsyncAPISource.Located], schema: MergedSchema, context: String) -> String {
        var shapes = variants.map { merged($0) }
        // An open union, as the export writes it: its cases, and a last variant for any other tag.
        let open = schema.wire("open")?.text == "true"
        if open { shapes.removeAll { $0.keywords["not"] != nil } }
        let name = freshName(context)
        let description = (schema.text("description") ?? schema.text("title")).map { [("description", SpecYAML.string($0))] } ?? []
        if let tag = Self.sharedTag(shapes) {
            var cases: [(String, SpecYAML)] = []
            for shape in shapes {
                guard let value = shape.constValue(of: tag) else { continue }
                let caseName = caseType(shape, fallback: "\(name) \(value)") { translator, name in
                    .mapping(translator.objectBody(shape, context: name, skipping: [tag]))
                }
                cases.append((value, .string(caseName)))
            }
            addType(name, .mapping(description + [("tag", .string(tag))] + (open ? [("open", .literal("true"))] : []) + [("cases", .mapping(cases))]))
            return name
        }
        var options: [(label: String, type: FieldType)] = []
        for (index, variant) in variants.enumerated() {
            let type = fieldType(variant, context: "\(name) option \(index + 1)")
            // Labelled as the export names it, else by the component a variant names (read once
            // resolved: the `$ref` node itself has no reference).
            let exported = schema.wire("variants")?.items.dropFirst(index).first?.text
            var label = exported ?? resolved(variant)?.reference.flatMap(Self.componentName).map(Self.lowerCamel) ?? "option\(index + 1)"
            if options.contains(where: { $0.label == label }) { label += "\(index + 1)" }
            options.append((label, type))
        }
        guard options.count >= 2 else {
            report(.warning, "a oneOf/anyOf of one schema is imported as that schema", at: schema.location)
            return options.first?.type.type ?? "json"
        }
        let body = options.map { ($0.label, SpecYAML.mapping([("type", .string($0.type.type))] + $0.type.constraints)) }
        addType(name, .mapping(description + [("oneOf", .mapping(body))]))
        return name
    }

    /// The type of a union case: the one already made for the type the export names in `x-wire`,
    /// else a new one (named so, or by `fallback`) with the body `make` writes.
    mutating func caseType(_ shape: MergedSchema, fallback: String, make: (inout SchemaTranslator, String) -> SpecYAML) -> String {
        let exported = shape.wire("name")?.text
        if let exported, let known = caseNames[exported] { return known }
        let name = freshName(exported ?? fallback)
        if let exported { caseNames[exported] = name }
        let body = make(&self, name)
        addType(name, body)
        return name
    }

    /// The property every schema gives a distinct string `const` (or one-value enum), if any.
    static func sharedTag(_ shapes: [MergedSchema]) -> String? {
        guard shapes.count >= 2, let first = shapes.first else { return nil }
        let candidates = first.properties.map(\.name).filter { name in
            let values = shapes.map { $0.constValue(of: name) }
            return values.allSatisfy { $0 != nil } && Set(values.compactMap { $0 }).count == shapes.count
        }
        return preferredTag(among: candidates)
    }

    /// The name a tag field most likely has: `type`, `event`, `method`, `op`, `action`, `kind`,
    /// `channel` in that order, then the first in alphabetical order.
    static func preferredTag(among names: some Collection<String>) -> String? {
        let preferred = ["type", "event", "method", "op", "action", "kind", "channel"]
        return names.min { (preferred.firstIndex(of: $0) ?? preferred.count, $0) < (preferred.firstIndex(of: $1) ?? preferred.count, $1) }
    }
}
