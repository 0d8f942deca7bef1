extension SpecReader {
    private static let typeKindKeys = ["fields", "enum", "cases", "oneOf", "type"]

    /// Reads `types:`.
    func types(_ node: YAMLNode, index: SpecIndex) -> [NamedType] {
        guard let entries = entries(node, in: "'types'") else { return [] }
        return entries.compactMap { entry in
            guard let name = identifier(YAMLNode(kind: .scalar(entry.key, plain: false), location: entry.keyLocation), "a type name") else {
                return nil
            }
            if TypeRef.builtinNames.contains(name) || name == "array" || name == "map" {
                error("type name '\(name)' is a built-in type; choose another name", at: entry.keyLocation)
                return nil
            }
            return namedType(name: name, location: entry.keyLocation, node: entry.value, index: index)
        }
    }

    private func namedType(name: String, location: SourceLocation, node: YAMLNode, index: SpecIndex) -> NamedType? {
        let context = "type '\(name)'"
        guard case .mapping(let entries) = node.kind else {
            error("expected a mapping for \(context), found \(node.kindDescription)", at: node.location)
            return nil
        }
        let kinds = Self.typeKindKeys.filter { key in entries.contains { $0.key == key } }
        guard let kindKey = kinds.first else {
            error("\(context) needs one of 'fields' (object), 'enum', 'cases' (union), 'oneOf' or 'type' (alias)", at: location)
            return nil
        }
        if kinds.count > 1, let second = entries.first(where: { $0.key == kinds[1] }) {
            error(
                "\(context) declares both '\(kindKey)' and '\(kinds[1])'; a type is exactly one of object, enum, union, oneOf or alias",
                at: second.keyLocation)
            return nil
        }
        let kind: NamedType.Kind?
        let map: Mapping?
        switch kindKey {
        case "fields":
            map = mapping(node, in: context, allowedKeys: ["description"] + Self.objectKeys)
            kind = map.map { .object(objectShape($0, owner: context, index: index, isMessage: false)) }
        case "enum":
            map = mapping(node, in: context, allowedKeys: ["description", "enum", "open"])
            kind = map.flatMap { enumeration($0, context: context) }.map(NamedType.Kind.enumeration)
        case "cases":
            map = mapping(node, in: context, allowedKeys: ["description", "tag", "cases", "open"])
            kind = map.flatMap { union($0, context: context, index: index) }.map(NamedType.Kind.union)
        case "oneOf":
            map = mapping(node, in: context, allowedKeys: ["description", "oneOf"])
            kind = map.flatMap { oneOf($0, context: context, index: index) }.map(NamedType.Kind.oneOf)
        default:
            map = mapping(node, in: context, allowedKeys: ["description", "type", "distinct"] + Self.constraintKeys)
            kind = map.flatMap { map in
                map["type"].flatMap { typeRef($0, in: context, index: index) }.map { type in
                    var alias = AliasType(type: type, constraints: constraints(map, context: context))
                    if let node = map["distinct"], let distinct = bool(node, "'distinct' in \(context)") {
                        if type == .string {
                            alias.distinct = distinct
                        } else {
                            error(
                                "'distinct' in \(context) applies only to a named string type (type: string)",
                                at: map.keyLocation("distinct") ?? node.location)
                        }
                    }
                    return NamedType.Kind.alias(alias)
                }
            }
        }
        guard let map, let kind else { return nil }
        let description = map["description"].flatMap { string($0, "'description' in \(context)") }
        return NamedType(name: name, description: description, kind: kind, location: location)
    }

    private func enumeration(_ map: Mapping, context: String) -> EnumType? {
        guard let node = map["enum"] else { return nil }
        let open = map["open"].flatMap { bool($0, "'open' in \(context)") } ?? false
        var values: [EnumType.Value] = []
        switch node.kind {
        case .sequence(let items):
            var seen = Set<String>()
            for item in items {
                guard let text = string(item, "a value of \(context)") else { continue }
                if !seen.insert(text).inserted {
                    error("duplicate value '\(text)' in \(context)", at: item.location)
                    continue
                }
                values.append(EnumType.Value(value: text))
            }
        case .mapping:
            for entry in entries(node, in: "the values of \(context)") ?? [] {
                let description = string(entry.value, "the description of '\(entry.key)' in \(context)")
                values.append(EnumType.Value(value: entry.key, description: description))
            }
        case .scalar:
            error(
                "expected a list of values or a mapping of value to description for 'enum' in \(context), found \(node.kindDescription)",
                at: node.location)
            return nil
        }
        guard !values.isEmpty else {
            error("\(context) has no values", at: node.location)
            return nil
        }
        return EnumType(values: values, open: open)
    }

    /// Reads `tag` and `cases` (and `open`) of a union type or a union message. A case is a type
    /// name, or `{type: Name, name: caseName}` to name the case in generated code.
    func union(_ map: Mapping, context: String, index: SpecIndex) -> UnionType? {
        guard let tagNode = require("tag", in: map, context: context), let tag = string(tagNode, "'tag' in \(context)"),
            let casesNode = require("cases", in: map, context: context), let entries = entries(casesNode, in: "the cases of \(context)")
        else { return nil }
        let open = map["open"].flatMap { bool($0, "'open' in \(context)") } ?? false
        var cases: [UnionType.Case] = []
        for entry in entries {
            let caseContext = "case '\(entry.key)' of \(context)"
            var typeNode = entry.value
            var caseName: String?
            if case .mapping = entry.value.kind {
                guard let caseMap = mapping(entry.value, in: caseContext, allowedKeys: ["type", "name"]),
                    let node = require("type", in: caseMap, context: caseContext)
                else { continue }
                typeNode = node
                caseName = caseMap["name"].flatMap { identifier($0, "'name' in \(caseContext)") }
            }
            guard let typeName = string(typeNode, caseContext) else { continue }
            guard index.typeNames.contains(typeName) else {
                error(
                    "undefined type '\(typeName)' in case '\(entry.key)' of \(context)\(Suggestions.hint(for: typeName, in: index.typeNames))",
                    at: typeNode.location)
                continue
            }
            let tagValue: SpecValue
            switch YAMLScalar.resolve(entry.key) {
            case .bool(let flag): tagValue = .bool(flag)
            default: tagValue = .string(entry.key)
            }
            if let caseName, let clash = cases.first(where: { $0.name == caseName }) {
                error(
                    "\(caseContext) is named '\(caseName)', like case '\(clash.tagValue.plainText)'; case names must differ", at: entry.value.location
                )
            }
            cases.append(UnionType.Case(tagValue: tagValue, type: typeName, name: caseName, location: entry.keyLocation))
        }
        guard !cases.isEmpty else {
            error("\(context) has no cases", at: casesNode.location)
            return nil
        }
        return UnionType(tag: tag, cases: cases, open: open)
    }

    private func oneOf(_ map: Mapping, context: String, index: SpecIndex) -> OneOfType? {
        guard let node = map["oneOf"], let entries = entries(node, in: "the variants of \(context)") else { return nil }
        let variants = entries.compactMap { entry -> OneOfType.Variant? in
            let variantContext = "variant '\(entry.key)' of \(context)"
            if case .scalar = entry.value.kind {
                return typeRef(entry.value, in: variantContext, index: index).map {
                    OneOfType.Variant(name: entry.key, type: $0, location: entry.keyLocation)
                }
            }
            guard let variant = mapping(entry.value, in: variantContext, allowedKeys: ["type", "description"] + Self.constraintKeys),
                let typeNode = require("type", in: variant, context: variantContext),
                let type = typeRef(typeNode, in: variantContext, index: index)
            else { return nil }
            return OneOfType.Variant(
                name: entry.key, description: variant["description"].flatMap { string($0, "'description' in \(variantContext)") },
                type: type, constraints: constraints(variant, context: variantContext), location: entry.keyLocation
            )
        }
        guard variants.count >= 2 else {
            error("\(context) needs at least two variants under 'oneOf'", at: node.location)
            return nil
        }
        return OneOfType(variants: variants)
    }
}
