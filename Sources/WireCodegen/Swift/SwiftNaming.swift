import WireSpec

/// The Swift names of everything generated from one spec, checked for collisions up front.
struct SwiftNaming {
    let spec: ProtocolSpec
    let namespace: String
    private var typeNames: [String: String] = [:]
    private var messageNames: [MessageRef: String] = [:]

    init(spec: ProtocolSpec, namespace: String?) throws(GeneratorError) {
        self.spec = spec
        self.namespace = namespace ?? SwiftNames.upperCamel(spec.name)
        var taken: [String: String] = [:]
        var problems: [Diagnostic] = []
        func claim(_ name: String, for what: String, at location: SourceLocation) {
            if SwiftNames.reservedTypeNames.contains(name) {
                problems.append(Diagnostic(.error, "\(what) would be generated as '\(name)', which Swift, Foundation or WireRuntime already uses; rename it or give it a 'typeName'", at: location))
            } else if let other = taken[name] {
                problems.append(Diagnostic(.error, "\(what) would be generated as '\(name)', like \(other); give one of them a 'typeName'", at: location))
            } else {
                taken[name] = what
            }
        }
        let fileStart = SourceLocation(file: spec.sourceFile, line: 1, column: 1)
        claim(self.namespace, for: "the protocol namespace", at: fileStart)
        for direction in Direction.allCases {
            claim(Self.frameName(direction), for: "the \(direction.rawValue) frame enum", at: fileStart)
            claim(Self.handlerName(direction), for: "the \(direction.rawValue) handler protocol", at: fileStart)
        }
        for type in spec.types {
            let name = SwiftNames.upperCamel(type.name)
            typeNames[type.name] = name
            claim(name, for: "type '\(type.name)'", at: type.location)
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
                if SwiftNames.reservedTypeNames.contains(name) { name += "Message" }
            }
            messageNames[ref] = name
            claim(name, for: "message '\(ref)'", at: message.location)
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

    /// The property of a field.
    func propertyName(_ field: String) -> String { SwiftNames.escaped(SwiftNames.lowerCamel(field)) }

    /// The property name without backticks, for building other identifiers from it.
    func bareName(_ field: String) -> String { SwiftNames.lowerCamel(field) }
}

/// The spec cannot be turned into Swift (for example two messages map to one type name).
public struct GeneratorError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
