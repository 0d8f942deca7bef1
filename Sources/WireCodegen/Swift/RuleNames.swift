import Foundation
import WireSpec

/// Names for the static rule constants a generated type declares, after what they check
/// (`nonEmptyMaxBytes64`, `uuidv4`, `whenSuccessTrue`), so a constant shared by several fields
/// reads right at each use.
enum RuleNames {
    /// The name of the rules of a value with these (merged) constraints; `alias` is the named
    /// type the constraints all come from, which names them best (`assetId`).
    static func constraints(_ c: Constraints, alias: String?) -> String {
        if let alias { return SwiftNames.lowerCamel(alias) + "Rules" }
        var words: [String] = []
        if let format = c.format { words.append(format.rawValue) }
        if let prefix = c.prefix { words.append("prefix " + identifierWords(prefix)) }
        if c.pattern != nil { words.append("pattern") }
        if c.notBlank { words.append("not blank") } else if c.minLength == 1 || c.minItems == 1 { words.append("non empty") }
        if let value = c.minLength, value != 1 || c.notBlank { words.append("min length \(value)") }
        if let value = c.maxLength { words.append("max length \(value)") }
        if let value = c.minBytes { words.append("min bytes \(value)") }
        if let value = c.maxBytes { words.append("max bytes \(value)") }
        if let value = c.maxDecodedBytes { words.append("max decoded bytes \(value)") }
        if let value = c.minItems, value != 1 { words.append("min items \(value)") }
        if let value = c.maxItems { words.append("max items \(value)") }
        if c.minimum == 0 && c.maximum == nil {
            words.append("non negative")
        } else {
            if let value = c.minimum { words.append("minimum " + number(value)) }
            if let value = c.maximum { words.append("maximum " + number(value)) }
        }
        if let value = c.const { words.append("equals " + identifierWords(value.plainText)) }
        return SwiftNames.lowerCamel((words + ["rules"]).joined(separator: " ").replacingOccurrences(of: " ", with: "_"))
    }

    /// `whenSuccessTrue`, `whenLevelWarnOrError`; with `detailed`, also what the rule asks for
    /// (`whenRoleUserRequireDeviceId`), to tell apart rules on the same condition.
    static func conditional(_ rule: ConditionalRule, detailed: Bool = false) -> String {
        func text(_ conditions: [Condition]) -> String {
            conditions.map { condition in
                identifierWords(condition.field) + " " + condition.values.map { identifierWords($0.plainText) }.joined(separator: " or ")
            }.joined(separator: " and ")
        }
        var words = "when " + text(rule.when)
        if detailed {
            if !rule.require.isEmpty { words += " require " + rule.require.map(identifierWords).joined(separator: " ") }
            if !rule.forbid.isEmpty { words += " forbid " + rule.forbid.map(identifierWords).joined(separator: " ") }
            if !rule.then.isEmpty { words += " then " + text(rule.then) }
        }
        return SwiftNames.lowerCamel(words.replacingOccurrences(of: " ", with: "_"))
    }

    /// Text as words of letters and digits: `c_` → `c`, `image/png` → `image png`, `-1.5` → `minus 1 5`.
    private static func identifierWords(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else if scalar == "-" && result.isEmpty {
                result += "minus "
            } else if !result.hasSuffix(" ") {
                result += " "
            }
        }
        return result.trimmingCharacters(in: .whitespaces).isEmpty ? "value" : result.trimmingCharacters(in: .whitespaces)
    }

    private static func number(_ value: Double) -> String {
        identifierWords(NumberText.compact(value).replacingOccurrences(of: ".", with: " point "))
    }
}
