/// Text helpers the emitters share for descriptions taken from the spec.
extension String {
    /// The text without trailing newlines (block scalars in YAML end with one).
    func trimmingTrailingNewlines() -> String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// The first sentence on one line: the text up to the first ". ", line breaks joined by spaces.
    func firstSentence() -> String {
        let flat = trimmingTrailingNewlines().split(separator: "\n").joined(separator: " ")
        guard let end = flat.range(of: ". ") else { return flat }
        return String(flat[..<end.lowerBound]) + "."
    }
}
