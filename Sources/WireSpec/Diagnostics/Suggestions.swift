/// Finds the candidate closest to a misspelled name, for "did you mean ...?" hints.
enum Suggestions {
    /// The closest candidate within a small edit distance, or `nil`.
    ///
    /// Case differences count as half an edit so `maxbytes` suggests `maxBytes`.
    static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        var best: (candidate: String, distance: Int)?
        let limit = max(2, name.count / 3)
        for candidate in candidates where candidate != name {
            let distance = editDistance(name, candidate)
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// The hint text, `" (did you mean 'x'?)"`, or an empty string.
    static func hint(for name: String, in candidates: some Sequence<String>) -> String {
        closest(to: name, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Levenshtein distance where a change of letter case alone costs 1 and other edits 2,
    /// halved and rounded up at the end.
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(stride(from: 0, through: b.count * 2, by: 2))
        var current = previous
        for i in 1...a.count {
            current[0] = i * 2
            for j in 1...b.count {
                let substitution: Int
                if a[i - 1] == b[j - 1] {
                    substitution = 0
                } else if a[i - 1].lowercased() == b[j - 1].lowercased() {
                    substitution = 1
                } else {
                    substitution = 2
                }
                current[j] = Swift.min(previous[j] + 2, current[j - 1] + 2, previous[j - 1] + substitution)
            }
            swap(&previous, &current)
        }
        return (previous[b.count] + 1) / 2
    }
}
