/// Checking values on their own (HTTP bodies, `Codable`), and what builders ask the engine.
extension ValidationPlan {
    /// What a generated type's checks are in its protocol's plan.
    public enum Reference: Sendable {
        /// A message (its fields, without its tag), by id.
        case message(Int)
        /// A named type, by index in `named`.
        case named(Int)
    }

    /// Checks the value at `index` as the type `reference` names, reporting every issue.
    public func check(_ tape: JSONTape.View, at index: Int, as reference: Reference) -> [ValidationIssue] {
        switch reference {
        case .message(let id):
            return checkMessage(id, at: index, in: tape)
        case .named(let named):
            var context = ValidationContext(borrowingSizeAnswer: sizeAnswerRef)
            check(index, in: tape, named: named, at: .root, in: &context, answer: defaultAnswer, ignoring: nil)
            return context.issues
        }
    }

    /// The position of the first variant of the one-of type `named` that the value at `index`
    /// matches (a checked value matches one); `nil` when it matches none.
    public func variant(of index: Int, in tape: JSONTape.View, named: Int) -> Int? {
        guard case .oneOf(let variants, _) = self.named[named] else { return nil }
        return firstPassingVariant(variants, at: index, in: tape, answer: defaultAnswer)
    }
}

extension JSONTape.View {
    /// The items of the array at `index`, each built by `build`; `nil` when one does not build.
    @inlinable
    @_spi(Generated) public func builtItems<T>(of index: Int, _ build: (Int) -> T?) -> [T]? {
        var items: [T] = []
        items.reserveCapacity(count(index))
        var failed = false
        forEachItem(of: index) { _, item in
            guard !failed, let value = build(item) else {
                failed = true
                return
            }
            items.append(value)
        }
        return failed ? nil : items
    }

    /// The members of the object at `index`, each value built by `build`; `nil` when one does not build.
    @inlinable
    @_spi(Generated) public func builtMembers<T>(of index: Int, _ build: (Int) -> T?) -> [String: T]? {
        builtMembers(of: index, keys: { string($0) }, build)
    }

    /// The members of the object at `index` as a dictionary with typed keys (a `map<K, V>`): each
    /// key built by `buildKey` from its index on the tape (a string), each value by `build`; `nil`
    /// when one fails.
    @inlinable
    @_spi(Generated) public func builtMembers<Key: Hashable, T>(
        of index: Int, keys buildKey: (Int) -> Key?, _ build: (Int) -> T?
    ) -> [Key: T]? {
        var members: [Key: T] = [:]
        members.reserveCapacity(count(index))
        var failed = false
        forEachMember(of: index) { key, member in
            guard let name = buildKey(key), let value = build(member) else {
                failed = true
                return false
            }
            members[name] = value
            return true
        }
        return failed ? nil : members
    }

    /// The members of the object at `index` whose keys are not `known` (nor `ignoring`), as JSON.
    @_spi(Generated) public func unknownMembers(of index: Int, known: Set<String>) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        forEachMember(of: index) { key, member in
            let name = string(key)
            if !known.contains(name) { members[name] = value(member) }
            return true
        }
        return members
    }

    /// Whether the value at `index` is `true`.
    @_spi(Generated) public func isTrue(_ index: Int) -> Bool { kind(index) == .true }

    /// The value of the member `key` of the object at `index`, searched from `cursor` and moved
    /// past it (see ``member(of:key:signature:cursor:)``): builders look their fields up this way.
    @inlinable
    @_spi(Generated) public func member(of index: Int, key: StaticString, cursor: inout Int) -> Int? {
        let bytes = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        return member(of: index, key: bytes, signature: JSONTape.keySignature(bytes), cursor: &cursor)
    }

    /// The member `key` of the object at `index` unless it is absent or `null`, searched from `cursor`.
    @inlinable
    @_spi(Generated) public func presentMember(of index: Int, key: StaticString, cursor: inout Int) -> Int? {
        guard let member = member(of: index, key: key, cursor: &cursor), kind(member) != .null else { return nil }
        return member
    }
}
