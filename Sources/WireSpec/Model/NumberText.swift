/// Numbers as a person reads them in messages, docs and names.
public enum NumberText {
    /// A number as written: `2` for 2.0 (no `.0`), `1.05`, `-1.5`, `1e-06`.
    public static func compact(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
