/// Semantic checks that need the whole model: constraint applicability, value types of consts,
/// defaults and conditions, union cases, byte-budget paths and session flag fields.
struct SpecChecker {
    let spec: ProtocolSpec
    let resolver: TypeResolver
    private(set) var diagnostics: [Diagnostic] = []

    init(spec: ProtocolSpec) {
        self.spec = spec
        self.resolver = TypeResolver(types: spec.types)
    }

    mutating func check() -> [Diagnostic] {
        for type in spec.types {
            checkType(type)
        }
        for message in spec.messages where !(message.declaredForBoth && message.direction == .server) {
            let owner = "message '\(message.declaredForBoth ? "" : message.direction.rawValue + " ")\(message.tag)'"
            checkShape(message.shape, owner: owner)
            if let variants = message.variants { checkMessageUnion(variants, owner: owner, at: message.location) }
        }
        for endpoint in spec.endpoints {
            for parameter in endpoint.parameters {
                checkField(parameter, owner: "endpoint '\(endpoint.name)'")
            }
            for parameter in endpoint.query {
                checkField(parameter, owner: "the query of endpoint '\(endpoint.name)'")
            }
        }
        if let session = spec.session {
            checkFlagFields(session)
            checkSessionFieldKinds(session)
        }
        return diagnostics
    }

    private mutating func error(_ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(.error, message, at: location))
    }

    // MARK: Types

    private mutating func checkType(_ type: NamedType) {
        let context = "type '\(type.name)'"
        switch type.kind {
        case .object(let shape):
            checkShape(shape, owner: context)
        case .alias(let alias):
            if resolver.isAliasCycle(type.name) {
                error("\(context) is an alias that refers back to itself", at: type.location)
                return
            }
            checkConstraints(alias.constraints, of: alias.type, what: context, at: type.location)
        case .oneOf(let oneOf):
            for variant in oneOf.variants {
                checkConstraints(variant.constraints, of: variant.type, what: "variant '\(variant.name)' of \(context)", at: variant.location)
            }
        case .union(let union):
            checkUnion(union, context: context, at: type.location)
        case .enumeration:
            break
        }
    }

    private mutating func checkUnion(_ union: UnionType, context: String, at location: SourceLocation) {
        let booleanTags = union.cases.filter { if case .bool = $0.tagValue { return true } else { return false } }
        if !booleanTags.isEmpty && booleanTags.count != union.cases.count {
            error("\(context) mixes boolean and string tag values; a tag is either a string or a boolean", at: location)
        }
        for unionCase in union.cases {
            guard case .object(_, let shape) = resolver.resolve(.named(unionCase.type)) else {
                error(
                    "case '\(unionCase.tagValue.plainText)' of \(context) must be an object type, but '\(unionCase.type)' is not",
                    at: unionCase.location)
                continue
            }
            if let tagField = shape.field(named: union.tag) {
                error("type '\(unionCase.type)' declares the tag field '\(union.tag)' of \(context); the union sets it", at: tagField.location)
            }
        }
    }

    /// A field of a message, looking into the case types of a union message.
    private func field(_ name: String, of message: Message) -> Field? {
        message.allFields(types: spec.types).first { $0.name == name }
    }

    /// A union message is checked as a union, and its case types must let the frame's own tag through.
    private mutating func checkMessageUnion(_ union: UnionType, owner: String, at location: SourceLocation) {
        checkUnion(union, context: owner, at: location)
        for unionCase in union.cases {
            guard case .object(_, let shape) = resolver.resolve(.named(unionCase.type)) else { continue }
            if let tagField = shape.field(named: spec.tagField) {
                error(
                    "type '\(unionCase.type)' declares the frame's tag field '\(spec.tagField)', but it is a case of \(owner)", at: tagField.location)
            }
            if shape.unknownFields == .reject {
                error(
                    "type '\(unionCase.type)' rejects unknown fields, but as a case of \(owner) its objects carry the frame's '\(spec.tagField)'; "
                        + "use 'rejectFields' for the keys it must not carry",
                    at: unionCase.location)
            }
        }
    }

    // MARK: Objects and fields

    private mutating func checkShape(_ shape: ObjectShape, owner: String) {
        for field in shape.fields {
            checkField(field, owner: owner)
        }
        for rule in shape.rules {
            switch rule {
            case .conditional(let conditional):
                for (key, conditions) in [("condition", conditional.when), ("'then' value", conditional.then)] {
                    for condition in conditions {
                        guard let field = shape.field(named: condition.field) else { continue }
                        for value in condition.values {
                            if let problem = mismatch(value, field.type) {
                                error("rule of \(owner): the \(key) on '\(field.name)' \(problem)", at: conditional.location)
                            }
                        }
                    }
                }
            case .byteBudget(let budget):
                for path in budget.paths {
                    if let problem = resolveBudgetPath(path, in: shape) {
                        error("budget '\(budget.name)' of \(owner): path '\(path)' \(problem)", at: budget.location)
                    }
                }
            }
        }
    }

    private mutating func checkField(_ field: Field, owner: String) {
        let what = "field '\(field.name)' of \(owner)"
        checkConstraints(field.constraints, of: field.type, what: what, at: field.location)
        if let value = field.defaultValue, let problem = mismatch(value, field.type) {
            error("the default of \(what) \(problem)", at: field.location)
        }
        if field.defaultValue != nil && field.required {
            error("\(what) has a default but is required; a default only applies to an optional field", at: field.location)
        }
    }

    /// A `map<K, V>`'s keys are JSON object keys, so `K` must be a string type: `string`, a string
    /// alias (with constraints) or a string enum.
    private mutating func checkMapKeys(_ type: TypeRef, what: String, at location: SourceLocation) {
        switch type {
        case .array(let element): checkMapKeys(element, what: what, at: location)
        case .map(let key, let value):
            switch resolver.resolve(key) {
            case .string, .enumeration, .unresolved: break
            case let other:
                error(
                    "the keys of '\(type)' in \(what) are '\(key)', which is \(other.description); JSON object keys are strings, "
                        + "so a map's key type must be string, a string alias or an enum", at: location)
            }
            checkMapKeys(value, what: what, at: location)
        default: break
        }
    }

    private mutating func checkConstraints(_ constraints: Constraints, of type: TypeRef, what: String, at location: SourceLocation) {
        checkMapKeys(type, what: what, at: location)
        let kind = resolver.resolve(type)
        if case .unresolved = kind { return }
        func reject(_ key: String, unless applies: Bool) {
            if !applies {
                error("constraint '\(key)' does not apply to \(what), whose type is '\(kind.description)'", at: location)
            }
        }
        var isString = false
        var isNumeric = false
        var isCollection = false
        switch kind {
        case .string: isString = true
        case .integer, .number: isNumeric = true
        case .array, .map: isCollection = true
        default: break
        }
        let c = constraints
        for (key, present) in [
            ("minLength", c.minLength != nil), ("maxLength", c.maxLength != nil), ("minBytes", c.minBytes != nil),
            ("maxBytes", c.maxBytes != nil), ("notBlank", c.notBlank), ("prefix", c.prefix != nil), ("pattern", c.pattern != nil),
        ] where present {
            reject(key, unless: isString)
        }
        for (key, present) in [("minimum", c.minimum != nil), ("maximum", c.maximum != nil)] where present {
            reject(key, unless: isNumeric)
        }
        for (key, present) in [("minItems", c.minItems != nil), ("maxItems", c.maxItems != nil)] where present {
            reject(key, unless: isCollection)
        }
        if let format = c.format {
            if format.appliesToStrings {
                reject("format: \(format.rawValue)", unless: isString)
            } else if case .integer = kind {
            } else {
                reject("format: \(format.rawValue)", unless: false)
            }
        }
        if c.maxDecodedBytes != nil && c.format != .base64 {
            error("constraint 'maxDecodedBytes' of \(what) needs 'format: base64'", at: location)
        }
        if let value = c.const, let problem = mismatch(value, type) {
            error("the 'const' of \(what) \(problem)", at: location)
        }
    }

    /// Why a literal value does not fit a type, or `nil` when it fits.
    private func mismatch(_ value: SpecValue, _ type: TypeRef) -> String? {
        let kind = resolver.resolve(type)
        let fits: Bool
        switch (kind, value) {
        case (.unresolved, _), (.json, _): fits = true
        case (.string, .string), (.boolean, .bool), (.integer, .integer), (.number, .integer), (.number, .number): fits = true
        case (.enumeration(let name, let enumType), .string(let text)):
            guard enumType.open || enumType.values.contains(where: { $0.value == text }) else {
                let names = enumType.values.map(\.value)
                return "uses '\(text)', which is not a value of enum '\(name)'\(Suggestions.hint(for: text, in: names))"
            }
            fits = true
        case (.array(let element), .array(let items)): return items.lazy.compactMap { mismatch($0, element) }.first
        default: fits = false
        }
        return fits ? nil : "is \(value.kindDescription), but the type is '\(kind.description)'"
    }

    // MARK: Budgets

    /// Why a byte-budget path does not lead to string values, or `nil` when it does.
    private func resolveBudgetPath(_ path: String, in shape: ObjectShape) -> String? {
        var shapes: [(owner: String, shape: ObjectShape)] = [("the object", shape)]
        let segments = path.split(separator: ".", omittingEmptySubsequences: false)
        for (offset, rawSegment) in segments.enumerated() {
            let name = String(rawSegment)
            let matches = shapes.compactMap { $0.shape.field(named: name) }
            guard let first = matches.first else {
                let candidates = shapes.flatMap { $0.shape.fields.map(\.name) }
                return
                    "does not resolve: no field '\(name)' in "
                    + "\(shapes.map(\.owner).joined(separator: " or "))\(Suggestions.hint(for: name, in: candidates))"
            }
            // Paths go through arrays implicitly: `attachments.data` sums `data` of every attachment.
            var type = first.type
            while case .array(let element) = resolver.resolve(type) {
                type = element
            }
            let isLast = offset == segments.count - 1
            switch resolver.resolve(type) {
            case .string where isLast: return nil
            case .object(let typeName, let next) where !isLast: shapes = [(typeName, next)]
            case .union(_, let union) where !isLast:
                shapes = union.cases.compactMap { unionCase in
                    if case .object(let typeName, let next) = resolver.resolve(.named(unionCase.type)) { return (typeName, next) }
                    return nil
                }
            default:
                return isLast
                    ? "must end at a string field, but '\(name)' is '\(resolver.resolve(type).description)'"
                    : "does not resolve: '\(name)' is not an object, a union or an array of them"
            }
        }
        return nil
    }

    // MARK: Session

    /// `grows` names string fields and a run's `count` an integer field.
    private mutating func checkSessionFieldKinds(_ session: SessionRules) {
        for rule in session.uniqueness {
            guard let message = spec.message(rule.frame) else { continue }
            for name in rule.grows {
                guard let field = field(name, of: message) else { continue }
                if case .string = resolver.resolve(field.type) { continue }
                error("'grows' in uniqueness rule '\(rule.name)' names '\(name)', which is not a string field; only text can grow", at: rule.location)
            }
        }
        for run in session.runs {
            guard let message = spec.message(run.after), let field = field(run.count, of: message) else { continue }
            if case .integer = resolver.resolve(field.type) { continue }
            error("'count' in run '\(run.name)' names '\(run.count)', which is not an integer field of '\(run.after)'", at: run.location)
        }
    }

    private mutating func checkFlagFields(_ session: SessionRules) {
        for transition in session.transitions {
            for name in transition.from {
                guard let phase = session.phases.first(where: { $0.name == name }),
                    !phase.allowed(transition.on.direction).contains(transition.on.tag)
                else { continue }
                error(
                    "transition on '\(transition.on)' applies in phase '\(name)', which does not allow \(transition.on); "
                        + "it could never apply there", at: transition.location)
            }
            guard let message = spec.message(transition.on) else { continue }
            for assignment in transition.set {
                guard let field = field(assignment.field, of: message) else { continue }
                if case .boolean = resolver.resolve(field.type) { continue }
                error("transition sets flag '\(assignment.flag)' from '\(assignment.field)', which is not a boolean field", at: transition.location)
            }
        }
    }
}
