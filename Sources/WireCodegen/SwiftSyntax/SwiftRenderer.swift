/// Renders the structured representation as Swift source text: 4-space indentation, doc comments
/// as `///` lines, one blank line between declarations, a trailing newline.
struct SwiftRenderer {
    private var lines: [String] = []
    private var depth = 0
    private let wrapper = SwiftLineWrapper()

    static func render(_ file: SwiftFile, header: String) -> String {
        var renderer = SwiftRenderer()
        for line in header.split(separator: "\n", omittingEmptySubsequences: false) {
            renderer.emit(String(line))
        }
        for module in file.imports {
            renderer.emit((module.spi.map { "@_spi(\($0)) " } ?? "") + "import \(module.module)")
        }
        for declaration in file.declarations {
            renderer.emit("")
            renderer.render(declaration)
        }
        return renderer.lines.joined(separator: "\n") + "\n"
    }

    /// Emits a line at the current indentation, wrapped when it is longer than the limit.
    private mutating func emit(_ line: String) {
        guard !line.isEmpty else { return lines.append("") }
        lines += wrapper.wrap(String(repeating: "    ", count: depth) + line)
    }

    private mutating func doc(_ text: String?) {
        guard let text, !text.isEmpty else { return }
        for line in text.trimmingTrailingNewlines().split(separator: "\n", omittingEmptySubsequences: false) {
            guard !line.isEmpty else {
                emit("///")
                continue
            }
            for part in wrapper.wrapDocLine(String(line), indent: depth * 4) { emit("/// " + part) }
        }
    }

    private mutating func render(_ declaration: SwiftDeclaration) {
        switch declaration {
        case .type(let type): render(type)
        case .variable(let variable): render(variable)
        case .function(let function): render(function)
        case .enumCase(let enumCase):
            doc(enumCase.doc)
            var line = "case \(enumCase.name)"
            if let associated = enumCase.associatedValues { line += associated }
            if let raw = enumCase.rawValue { line += " = \(raw)" }
            emit(line)
        case .typeAlias(let text, let access, let name, let type):
            doc(text)
            emit("\(access.prefix)typealias \(name) = \(type)")
        }
    }

    private mutating func render(_ type: TypeDeclaration) {
        doc(type.doc)
        var header = "\(type.access?.prefix ?? "")\(type.kind.rawValue) \(type.name)"
        if !type.conformances.isEmpty { header += ": " + type.conformances.joined(separator: ", ") }
        guard !type.members.isEmpty else {
            emit(header + " {}")
            return
        }
        emit(header + " {")
        depth += 1
        var previousWasCase = false
        for (index, member) in type.members.enumerated() {
            let isCase: Bool
            if case .enumCase(let enumCase) = member { isCase = enumCase.doc == nil } else { isCase = false }
            // Undocumented enum cases stay together; everything else is separated by a blank line.
            if index > 0 && !(isCase && previousWasCase) { emit("") }
            render(member)
            previousWasCase = isCase
        }
        depth -= 1
        emit("}")
    }

    private mutating func render(_ variable: VariableDeclaration) {
        doc(variable.doc)
        var line = (variable.isPlumbing ? variable.access?.plumbingPrefix : variable.access?.prefix) ?? ""
        if variable.isStatic { line += "static " }
        line += (variable.getter != nil || variable.isRequirement || !variable.isLet) ? "var " : "let "
        line += variable.name
        if let type = variable.type { line += ": \(type)" }
        if variable.isRequirement {
            emit(line + " { get }")
        } else if let getter = variable.getter {
            emit(line + " {")
            body(getter)
            emit("}")
        } else {
            guard let initializer = variable.initializer else { return emit(line) }
            // A multi-line initializer keeps its own relative indentation under the declaration's.
            let initializerLines = initializer.split(separator: "\n", omittingEmptySubsequences: false)
            emit(line + " = " + initializerLines[0])
            for continuation in initializerLines.dropFirst() { emit(String(continuation)) }
        }
    }

    private mutating func render(_ function: FunctionDeclaration) {
        doc(function.doc)
        var line = (function.isPlumbing ? function.access?.plumbingPrefix : function.access?.prefix) ?? ""
        if function.isStatic { line += "static " }
        line += function.isInitializer ? function.signature : "func " + function.signature
        guard let statements = function.body else {
            emit(line)
            return
        }
        emit(line + " {")
        body(statements)
        emit("}")
    }

    private mutating func body(_ statements: [Statement]) {
        depth += 1
        for statement in statements { render(statement) }
        depth -= 1
    }

    private mutating func render(_ statement: Statement) {
        switch statement {
        case .line(let text): emit(text)
        case .blank: emit("")
        case .block(let opener, let statements, let suffix):
            emit(opener + " {")
            body(statements)
            emit("}" + suffix)
        case .switchOn(let subject, let cases):
            emit("switch \(subject) {")
            for switchCase in cases {
                emit(switchCase.pattern + ":")
                body(switchCase.body.isEmpty ? [.line("break")] : switchCase.body)
            }
            emit("}")
        }
    }
}
