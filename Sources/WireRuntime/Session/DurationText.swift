/// Durations in the units a person reads them in, for messages and docs.
public enum DurationText {
    /// `365 d`, `2 h`, `1 min`, `30 s` or `250 ms`: the largest unit that divides the duration.
    public static func from(milliseconds: Int) -> String {
        if milliseconds % 86_400_000 == 0 { return "\(milliseconds / 86_400_000) d" }
        if milliseconds % 3_600_000 == 0 { return "\(milliseconds / 3_600_000) h" }
        if milliseconds % 60_000 == 0 { return "\(milliseconds / 60_000) min" }
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return "\(milliseconds) ms"
    }
}
