/// A small structured representation of the Swift the generator emits: declarations and
/// statement blocks are structure, expressions and signatures are text. The renderer owns layout
/// (indentation, doc comments, blank lines), so emitters never assemble whitespace by hand.
struct SwiftFile: Equatable {
    var name: String
    var imports: [SwiftImport]
    var declarations: [SwiftDeclaration]
}

/// `import Foundation`, or `@_spi(Generated) import WireRuntime` to see the runtime's plumbing.
struct SwiftImport: Equatable {
    var module: String
    var spi: String?
}

/// Access levels a generated declaration can have.
public enum AccessLevel: String, Sendable, CaseIterable {
    case `public`
    case package
    case `internal`

    /// The keyword followed by a space, or nothing for `internal`.
    var prefix: String { self == .internal ? "" : rawValue + " " }

    /// The keyword of a declaration only generated code uses: `@_spi(Generated) public` when the
    /// code is public (apps do not see it without importing the SPI), the plain keyword otherwise.
    var plumbingPrefix: String { self == .public ? "@_spi(\(Self.spiName)) public " : prefix }

    /// The SPI under which WireRuntime and generated code share what apps need not see.
    static let spiName = "Generated"
}

indirect enum SwiftDeclaration: Equatable {
    case type(TypeDeclaration)
    case variable(VariableDeclaration)
    case function(FunctionDeclaration)
    case enumCase(EnumCaseDeclaration)
    case typeAlias(doc: String?, access: AccessLevel, name: String, type: String)
}

struct TypeDeclaration: Equatable {
    enum Kind: String {
        case `struct`, `enum`, `protocol`, `extension`
    }

    var kind: Kind
    var doc: String?
    /// `nil` for extensions and for members that inherit the file's default.
    var access: AccessLevel?
    var name: String
    var conformances: [String] = []
    var members: [SwiftDeclaration] = []
}

struct VariableDeclaration: Equatable {
    var doc: String?
    var access: AccessLevel?
    /// Plumbing that only generated code uses: behind `@_spi(Generated)` when public.
    var isPlumbing = false
    var isStatic = false
    var isLet = true
    var name: String
    var type: String?
    var initializer: String?
    /// A computed property's body (then `isLet` is ignored).
    var getter: [Statement]?
    /// For protocol requirements: `{ get }`.
    var isRequirement = false
}

struct FunctionDeclaration: Equatable {
    var doc: String?
    var access: AccessLevel?
    /// Plumbing that only generated code uses: behind `@_spi(Generated)` when public.
    var isPlumbing = false
    var isStatic = false
    /// Everything after `func` (or the whole signature for initialisers): `decode(from json: JSONValue) -> Self?`.
    var signature: String
    var isInitializer = false
    /// `nil` for a protocol requirement.
    var body: [Statement]?
}

struct EnumCaseDeclaration: Equatable {
    var doc: String?
    var name: String
    /// `(PairRequest)` or `(tag: String, json: JSONValue)`.
    var associatedValues: String?
    /// A raw value literal, e.g. `"image/png"`.
    var rawValue: String?
}

indirect enum Statement: Equatable {
    case line(String)
    case blank
    /// `opener {` body `}closerSuffix`; the opener includes everything before the brace.
    case block(String, [Statement], closerSuffix: String = "")
    case switchOn(String, [SwitchCase])
}

struct SwitchCase: Equatable {
    /// `case .image(let value)` or `default`; rendered with a trailing colon.
    var pattern: String
    var body: [Statement]
}
