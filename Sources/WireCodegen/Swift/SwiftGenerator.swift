import WireSpec

/// A file the generator writes.
public struct GeneratedFile: Sendable, Hashable {
    /// The file name, without a directory.
    public var name: String
    /// The file's complete text.
    public var contents: String

    public init(name: String, contents: String) {
        self.name = name
        self.contents = contents
    }
}

/// How Swift is generated from a spec.
public struct SwiftGeneratorOptions: Sendable, Hashable {
    /// The access level of generated declarations.
    public var accessLevel: AccessLevel
    /// The name of the enum holding the protocol's tables; by default the spec's name in UpperCamelCase.
    public var namespace: String?

    public init(accessLevel: AccessLevel = .public, namespace: String? = nil) {
        self.accessLevel = accessLevel
        self.namespace = namespace
    }
}

/// Generates the Swift SDK of a spec: wire types, messages, frame enums with their codec, typed
/// dispatchers, validation and tables. Pure: the same spec and options give the same bytes.
public enum SwiftGenerator {
    /// The files generated for every spec, always the same set, whatever the namespace (so a
    /// build plugin can declare them without reading the spec). WireCodegenPlugin keeps a copy of
    /// this list; a test checks that the two agree.
    public static let fileNames = [
        "GeneratedTypes.swift", "GeneratedClientMessages.swift", "GeneratedServerMessages.swift",
        "GeneratedFrames.swift", "GeneratedDispatch.swift", "GeneratedTables.swift",
    ]

    /// The namespace a spec generates into with the given options: the option, or else the
    /// protocol's `name` in UpperCamelCase. The one rule for `wire generate` and the build plugin.
    public static func namespace(for spec: ProtocolSpec, options: SwiftGeneratorOptions = SwiftGeneratorOptions()) -> String {
        options.namespace ?? SwiftNames.upperCamel(spec.name)
    }

    /// The problems that keep a spec from generating Swift (names that collide or that generated
    /// code cannot use), located in the spec; `wire lint` reports them too, so what lint accepts
    /// generates.
    public static func nameProblems(_ spec: ProtocolSpec, options: SwiftGeneratorOptions = SwiftGeneratorOptions()) -> [Diagnostic] {
        do {
            _ = try SwiftNaming(spec: spec, namespace: options.namespace)
            return []
        } catch {
            return error.diagnostics
        }
    }

    /// Generates every file.
    public static func generate(
        _ spec: ProtocolSpec, options: SwiftGeneratorOptions = SwiftGeneratorOptions()
    ) throws(GeneratorError) -> [GeneratedFile] {
        let naming = try SwiftNaming(spec: spec, namespace: options.namespace)
        let mapper = SwiftTypeMapper(spec: spec, naming: naming)
        let access = options.accessLevel
        let objects = ObjectEmitter(mapper: mapper, access: access)
        let enums = EnumEmitter(mapper: mapper, access: access, objects: objects)
        let frames = FrameEmitter(mapper: mapper, access: access)
        let tables = TablesEmitter(mapper: mapper, access: access)

        let unionCaseTypes = Set(
            (spec.types.compactMap { type -> UnionType? in
                if case .union(let union) = type.kind { return union }
                return nil
            } + spec.messages.compactMap(\.variants)).flatMap { $0.cases.map(\.type) })
        var types: [SwiftDeclaration] = []
        for type in spec.types {
            switch type.kind {
            case .object(let shape):
                types += objects.declarations(
                    name: naming.typeName(type.name), doc: type.description, shape: shape, isUnionCase: unionCaseTypes.contains(type.name))
            case .enumeration(let values): types += enums.enumeration(type, values)
            case .union(let union): types += enums.union(type, union)
            case .oneOf(let oneOf): types += enums.oneOf(type, oneOf)
            case .alias(let alias) where alias.isDistinctString:
                types += enums.distinctString(type, doc: Self.aliasDoc(type, alias))
            case .alias(let alias):
                types.append(
                    .typeAlias(doc: Self.aliasDoc(type, alias), access: access, name: naming.typeName(type.name), type: mapper.aliasTarget(alias)))
            }
        }
        func messages(_ direction: Direction) -> [SwiftDeclaration] {
            spec.messages(direction)
                .filter { !($0.declaredForBoth && $0.direction == .server) }
                .flatMap { message -> [SwiftDeclaration] in
                    let doc = messageDoc(message, tagField: spec.tagField)
                    if let variants = message.variants { return enums.variantMessage(message, variants, doc: doc) }
                    return objects.declarations(name: naming.messageName(message), doc: doc, shape: message.shape, message: message)
                }
        }
        let names = fileNames
        let header = """
            // Generated by `wire generate` from \(spec.sourceFile.split(separator: "/").last.map(String.init) ?? spec.sourceFile) \
            (\(spec.title) v\(spec.version)).
            // Do not edit: change the spec and rebuild.
            """
        let imports = [SwiftImport(module: "Foundation"), SwiftImport(module: "WireRuntime", spi: AccessLevel.spiName)]
        let files = [
            SwiftFile(name: names[0], imports: imports, declarations: types),
            SwiftFile(name: names[1], imports: imports, declarations: messages(.client)),
            SwiftFile(name: names[2], imports: imports, declarations: messages(.server)),
            SwiftFile(name: names[3], imports: imports, declarations: frames.frameEnum(.client) + frames.frameEnum(.server)),
            SwiftFile(name: names[4], imports: imports, declarations: frames.dispatcher(.client) + frames.dispatcher(.server)),
            SwiftFile(name: names[5], imports: imports, declarations: tables.namespaceDeclarations()),
        ]
        return files.map { GeneratedFile(name: $0.name, contents: SwiftRenderer.render($0, header: header)) }
    }

    private static func aliasDoc(_ type: NamedType, _ alias: AliasType) -> String {
        var parts = [type.description?.trimmingTrailingNewlines()].compactMap { $0 }
        let rules = ConstraintText.phrases(alias.constraints)
        if !rules.isEmpty { parts.append("Validated: " + rules.joined(separator: ", ") + ".") }
        return parts.joined(separator: "\n\n")
    }

    private static func messageDoc(_ message: Message, tagField: String) -> String {
        var parts = [(message.description ?? "The `\(message.tag)` message.").trimmingTrailingNewlines()]
        parts.append(
            "Sent by the \(message.declaredForBoth ? "client and the server" : message.direction.rawValue) with `\"\(tagField)\": "
                + "\"\(message.tag)\"`."
        )
        return parts.joined(separator: "\n\n")
    }
}
