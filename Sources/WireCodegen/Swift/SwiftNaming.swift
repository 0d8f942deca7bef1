import WireSpec

/// The Swift names of everything generated from one spec, checked for collisions up front.
struct SwiftNaming {
    let spec: ProtocolSpec
    let namespace: String
    private var typeNames: [String: String] = [:]
    private var messageNames: [MessageRef: String] = [:]
    /// Per enumeration type (by spec name): each value's case identifier, unique within the enum.
    private var enumCases: [String: [String: String]] = [:]

    init(spec: ProtocolSpec, namespace: String?) throws(GeneratorError) {
        self.spec = spec
        self.namespace = namespace ?? SwiftNames.upperCamel(spec.name)
        var taken: [String: String] = [:]
        var problems: [Diagnostic] = []
        /// `remedy` says what the spec's author can change: rename a type, or give a message a `typeName`.
        func claim(_ name: String, for what: String, remedy: String, at location: SourceLocation) {
            if SwiftNames.reservedTypeNames.contains(name) {
                problems.append(
                    Diagnostic(
                        .error,
                        "\(what) would be generated as '\(name)', which generated code cannot use as a type name (a module it qualifies names "
                            + "with, " + "or a name Swift reserves); \(remedy)",
                        at: location))
            } else if let other = taken[name] {
                problems.append(Diagnostic(.error, "\(what) would be generated as '\(name)', like \(other); \(remedy)", at: location))
            } else {
                taken[name] = what
            }
        }
        let fileStart = SourceLocation(file: spec.sourceFile, line: 1, column: 1)
        let namespaceRemedy = "choose another namespace (the 'namespace' option, or the protocol's 'name')"
        claim(self.namespace, for: "the protocol namespace", remedy: namespaceRemedy, at: fileStart)
        for direction in Direction.allCases {
            claim(
                Self.frameName(direction), for: "the \(direction.rawValue) frame enum", remedy: "rename the type or message that takes its name",
                at: fileStart)
            claim(
                Self.handlerName(direction), for: "the \(direction.rawValue) handler protocol",
                remedy: "rename the type or message that takes its name", at: fileStart)
        }
        for type in spec.types {
            let name = SwiftNames.upperCamel(type.name)
            typeNames[type.name] = name
            if case .enumeration(let values) = type.kind {
                let values = values.values.map(\.value)
                enumCases[type.name] = Dictionary(zip(values, SwiftNames.caseIdentifiers(values)), uniquingKeysWith: { first, _ in first })
            }
            claim(name, for: "type '\(type.name)'", remedy: "rename the type", at: type.location)
        }
        let tagsInBothDirections = Set(spec.messages(.client).filter { !$0.declaredForBoth }.map(\.tag))
            .intersection(spec.messages(.server).filter { !$0.declaredForBoth }.map(\.tag))
        for message in spec.messages {
            let ref = MessageRef(direction: message.direction, tag: message.tag)
            if message.declaredForBoth && message.direction == .server {
                messageNames[ref] = messageNames[MessageRef(direction: .client, tag: message.tag)]
                continue
            }
            var name = message.typeName ?? SwiftNames.upperCamel(message.tag)
            if message.typeName == nil {
                if tagsInBothDirections.contains(message.tag) { name = SwiftNames.upperCamel(message.direction.rawValue) + name }
                if SwiftNames.reservedTypeNames.contains(name) || SwiftNames.shadowingNames.contains(name) { name += "Message" }
            }
            messageNames[ref] = name
            let remedy = message.typeName == nil ? "give the message a 'typeName'" : "change its 'typeName'"
            claim(name, for: "message '\(ref)'", remedy: remedy, at: message.location)
        }
        if !problems.isEmpty { throw GeneratorError(diagnostics: problems) }
    }

    static func frameName(_ direction: Direction) -> String { SwiftNames.upperCamel(direction.rawValue) + "Frame" }
    static func handlerName(_ direction: Direction) -> String { frameName(direction) + "Handler" }

    /// The Swift name of a named type.
    func typeName(_ name: String) -> String { typeNames[name] ?? SwiftNames.upperCamel(name) }

    /// The Swift name of a message's struct.
    func messageName(_ message: Message) -> String {
        messageNames[MessageRef(direction: message.direction, tag: message.tag)] ?? SwiftNames.upperCamel(message.tag)
    }

    /// The case of a message in its frame enum.
    func frameCase(_ message: Message) -> String {
        let name = SwiftNames.lowerCamel(message.tag)
        return name == "unknown" ? "unknownMessage" : SwiftNames.escaped(name)
    }

    /// The case identifier of a value of an enumeration type (`ErrorCode` for the error table).
    func caseName(_ value: String, inEnum type: String) -> String {
        enumCases[type]?[value] ?? SwiftNames.caseIdentifiers([value])[0]
    }

    /// The property of a field, escaped where it is a keyword.
    func propertyName(_ field: String) -> String { SwiftNames.escaped(bareName(field)) }

    /// The property name without backticks, for building other identifiers from it; a name a
    /// generated type already uses for a member of its own gets a trailing `_`.
    func bareName(_ field: String) -> String {
        let name = SwiftNames.lowerCamel(field)
        return SwiftNames.reservedPropertyNames.contains(name) ? name + "_" : name
    }

    /// The label of a field's parameter in an initializer's declaration: its property name, in
    /// backticks where Swift does not take the keyword as a label (`inout`) or warns that it reads
    /// it as one (`let`, `var`).
    func parameterLabel(_ field: String) -> String {
        let name = bareName(field)
        return ["inout", "let", "var"].contains(name) ? "`\(name)`" : name
    }

    /// The label of a field's argument in a call: its property name, in backticks only where
    /// Swift requires them there (`inout`).
    func argumentLabel(_ field: String) -> String {
        let name = bareName(field)
        return name == "inout" ? "`inout`" : name
    }
}

/// The spec cannot be turned into Swift (for example two messages map to one type name).
public struct GeneratorError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
