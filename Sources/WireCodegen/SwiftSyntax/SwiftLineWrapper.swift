import Foundation

/// Breaks a line of generated Swift that is longer than the limit, on its lexical structure:
/// an argument, parameter or element list goes one item per line, a one-line closure's body goes
/// on its own line, and as a last resort a string literal is split into parts joined with `+`.
/// Brackets inside string literals and their interpolations are not structure. Each line it
/// produces is wrapped again while it is still too long and can be broken.
struct SwiftLineWrapper {
    /// The longest line, in characters.
    var limit = 150
    /// One level of indentation.
    var indentUnit = "    "

    /// The line as one or more lines, none longer than the limit where the line can be broken.
    func wrap(_ line: String) -> [String] {
        guard line.count > limit else { return [line] }
        let indent = String(line.prefix { $0 == " " })
        let code = Array(line.dropFirst(indent.count))
        // A comment is prose, not structure: a pattern such as `[0-9]{4}` in a doc comment must
        // not be broken at its brackets (the lines after the first would no longer be comments).
        if code.starts(with: ["/", "/"]) { return [line] }
        let tokens = Self.scan(code)
        if let lines = breakList(code, tokens, indent: indent) ?? breakClosure(code, tokens, indent: indent)
            ?? splitLiteral(code, tokens, indent: indent)
        {
            return lines.flatMap { $0.count > limit && $0 != line ? wrap($0) : [$0] }
        }
        return [line]
    }

    // MARK: Scanning

    /// What the wrapper needs to know about each character: how deep in brackets it is, and
    /// whether it is inside a string literal (interpolations included).
    struct Token {
        var depth: Int
        var inString: Bool
    }

    /// Marks every character of a line of Swift: bracket depth `()[]{}` outside string literals,
    /// and string literals with their escapes and `\(...)` interpolations (raw `#"…"#` included).
    static func scan(_ code: [Character]) -> [Token] {
        var tokens: [Token] = []
        tokens.reserveCapacity(code.count)
        var depth = 0
        var index = 0
        // For each open string: its number of `#`, and the bracket depth of interpolations inside it.
        var strings: [(hashes: Int, interpolation: Int)] = []
        while index < code.count {
            let character = code[index]
            if var string = strings.last, string.interpolation == 0 {
                tokens.append(Token(depth: depth, inString: true))
                let closingHashes = String(repeating: "#", count: string.hashes)
                if character == "\\" && Self.matches(code, index + 1, closingHashes) {
                    let escape = index + 1 + string.hashes
                    if escape < code.count, code[escape] == "(" {
                        for _ in index + 1...escape { tokens.append(Token(depth: depth, inString: true)) }
                        string.interpolation = 1
                        strings[strings.count - 1] = string
                        index = escape + 1
                        continue
                    }
                    for _ in index + 1..<min(escape + 1, code.count) { tokens.append(Token(depth: depth, inString: true)) }
                    index = escape + 1
                    continue
                }
                if character == "\"" && Self.matches(code, index + 1, closingHashes) {
                    for _ in 0..<string.hashes { tokens.append(Token(depth: depth, inString: true)) }
                    strings.removeLast()
                    index += 1 + string.hashes
                    continue
                }
                index += 1
                continue
            }
            if var string = strings.last {
                // Code inside an interpolation: track its own parentheses to find where it ends.
                tokens.append(Token(depth: depth, inString: true))
                if character == "(" { string.interpolation += 1 }
                if character == ")" { string.interpolation -= 1 }
                if character == "\"" || (character == "#" && index + 1 < code.count && code[index + 1] == "\"") {
                    strings[strings.count - 1] = string
                    index = openString(code, at: index, tokens: &tokens, depth: depth, strings: &strings)
                    continue
                }
                strings[strings.count - 1] = string
                index += 1
                continue
            }
            if character == "\"" || (character == "#" && index + 1 < code.count && (code[index + 1] == "\"" || code[index + 1] == "#")) {
                index = openString(code, at: index, tokens: &tokens, depth: depth, strings: &strings)
                continue
            }
            if "([{".contains(character) {
                tokens.append(Token(depth: depth, inString: false))
                depth += 1
            } else if ")]}".contains(character) {
                depth -= 1
                tokens.append(Token(depth: depth, inString: false))
            } else {
                tokens.append(Token(depth: depth, inString: false))
            }
            index += 1
        }
        return tokens
    }

    /// Opens a string literal at `index` (`"`, or `#"` with any number of `#`); returns the index after its opening quote.
    private static func openString(
        _ code: [Character], at index: Int, tokens: inout [Token], depth: Int, strings: inout [(hashes: Int, interpolation: Int)]
    ) -> Int {
        var hashes = 0
        var position = index
        while position < code.count, code[position] == "#" {
            hashes += 1
            position += 1
        }
        guard position < code.count, code[position] == "\"" else {
            for _ in index..<position { tokens.append(Token(depth: depth, inString: false)) }
            return position
        }
        for _ in index...position { tokens.append(Token(depth: depth, inString: true)) }
        strings.append((hashes, 0))
        return position + 1
    }

    private static func matches(_ code: [Character], _ index: Int, _ text: String) -> Bool {
        guard index + text.count <= code.count else { return false }
        return String(code[index..<index + text.count]) == text
    }

    // MARK: Breaking

    /// Breaks the first top-level `(…)` or `[…]` with more than one item (or one item long enough),
    /// one item per line: `call(`, the items indented, `)` and what follows.
    private func breakList(_ code: [Character], _ tokens: [Token], indent: String) -> [String]? {
        var index = 0
        while index < code.count {
            guard !tokens[index].inString, tokens[index].depth == 0, code[index] == "(" || code[index] == "[" else {
                index += 1
                continue
            }
            guard let close = matchingClose(code, tokens, from: index) else { return nil }
            let items = topLevelItems(code, tokens, from: index + 1, to: close)
            if !items.isEmpty, items.count > 1 || close - index > limit / 2 {
                let inner = indent + indentUnit
                var lines = [indent + String(code[0...index])]
                for (position, item) in items.enumerated() {
                    lines.append(inner + item + (position < items.count - 1 ? "," : ""))
                }
                lines.append(indent + String(code[close...]))
                return lines
            }
            index = close + 1
        }
        return nil
    }

    /// Breaks a one-line closure `{ params in body }` (or `{ body }`) at the top level: the body on its own line.
    private func breakClosure(_ code: [Character], _ tokens: [Token], indent: String) -> [String]? {
        guard let open = code.indices.first(where: { !tokens[$0].inString && tokens[$0].depth == 0 && code[$0] == "{" }),
            let close = matchingClose(code, tokens, from: open)
        else { return nil }
        let inside = String(code[(open + 1)..<close]).trimmingCharacters(in: .whitespaces)
        guard !inside.isEmpty else { return nil }
        var head = String(code[...open])
        var body = inside
        if let range = Self.closureSignature(inside) {
            head += " " + inside[..<range.upperBound].trimmingCharacters(in: .whitespaces)
            body = inside[range.upperBound...].trimmingCharacters(in: .whitespaces)
        }
        guard !body.isEmpty else { return nil }
        return [indent + head, indent + indentUnit + body, indent + String(code[close...])]
    }

    /// The range of `params in` at the start of a closure's content, when it has one.
    private static func closureSignature(_ content: String) -> Range<String.Index>? {
        guard let range = content.range(of: " in ") else { return nil }
        let signature = content[..<range.lowerBound]
        guard signature.allSatisfy({ $0.isLetter || $0.isNumber || "_, ".contains($0) }) else { return nil }
        return content.startIndex..<range.upperBound
    }

    /// Splits the longest string literal without interpolations at a space: `"first " +` then `"rest"`.
    private func splitLiteral(_ code: [Character], _ tokens: [Token], indent: String) -> [String]? {
        var best: (start: Int, end: Int)?
        var index = 0
        while index < code.count {
            guard tokens[index].inString, code[index] == "\"" else {
                index += 1
                continue
            }
            var end = index + 1
            while end < code.count, tokens[end].inString, code[end] != "\"" { end += 1 }
            guard end < code.count else { break }
            let literal = String(code[index...end])
            if !literal.contains("\\("), literal.contains(" "), end - index > (best.map { $0.end - $0.start } ?? 40) { best = (index, end) }
            index = end + 1
        }
        guard let best else { return nil }
        let content = Array(code[(best.start + 1)..<best.end])
        // The first line is the indentation, the code before the literal, `"`, the cut text, `" +`.
        let room = max(20, limit - indent.count - best.start - 4)
        guard let cut = content.indices.last(where: { $0 < min(room, content.count - 1) && content[$0] == " " && (content[$0 - 1] != "\\") }) else {
            return nil
        }
        let first = String(code[..<best.start]) + "\"" + String(content[...cut]) + "\" +"
        let second = "\"" + String(content[(cut + 1)...]) + "\"" + String(code[(best.end + 1)...])
        return [indent + first, indent + indentUnit + second]
    }

    /// The index of the bracket that closes the one at `open`.
    private func matchingClose(_ code: [Character], _ tokens: [Token], from open: Int) -> Int? {
        let depth = tokens[open].depth
        var index = open + 1
        while index < code.count {
            if !tokens[index].inString, tokens[index].depth == depth, ")]}".contains(code[index]) { return index }
            index += 1
        }
        return nil
    }

    /// The comma-separated items directly inside a bracket pair, trimmed.
    private func topLevelItems(_ code: [Character], _ tokens: [Token], from start: Int, to end: Int) -> [String] {
        let depth = tokens[start].depth
        var items: [String] = []
        var itemStart = start
        for index in start..<end where !tokens[index].inString && tokens[index].depth == depth && code[index] == "," {
            items.append(String(code[itemStart..<index]).trimmingCharacters(in: .whitespaces))
            itemStart = index + 1
        }
        let last = String(code[itemStart..<end]).trimmingCharacters(in: .whitespaces)
        if !last.isEmpty { items.append(last) }
        return items
    }
}

extension SwiftLineWrapper {
    /// Doc comment text wrapped at spaces so that `/// ` plus the text fits in the limit at this
    /// indentation; a continued list item (`  - name: …`) keeps its indentation.
    func wrapDocLine(_ text: String, indent: Int) -> [String] {
        let width = limit - indent - 4
        guard text.count > width else { return [text] }
        let leading = text.prefix { $0 == " " }.count
        let continuation = String(repeating: " ", count: text.dropFirst(leading).hasPrefix("- ") ? leading + 2 : leading)
        var lines: [String] = []
        var current = String(repeating: " ", count: leading)
        for word in text.dropFirst(leading).split(separator: " ") {
            if current.trimmingCharacters(in: .whitespaces).isEmpty {
                current += word
            } else if current.count + 1 + word.count > width {
                lines.append(current)
                current = continuation + word
            } else {
                current += " " + word
            }
        }
        lines.append(current)
        return lines
    }
}
