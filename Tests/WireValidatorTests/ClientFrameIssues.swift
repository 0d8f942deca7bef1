import WireRuntime
import WireSpec
import WireValidator

/// The issues `frame` gets as a client frame of the spec `yaml`, each as `rule at path`; the
/// small specs of the engine's tests are checked one frame at a time this way.
func clientFrameIssues(_ frame: String, spec yaml: String, file: String) throws -> [String] {
    let spec = try SpecLoader.check(yaml: yaml, file: file).get()
    guard case .checked(_, let issues) = FrameValidator(spec: spec).check(Array(frame.utf8), direction: .client) else {
        return ["not checked"]
    }
    return issues.map { "\($0.rule) at \($0.path)" }
}
