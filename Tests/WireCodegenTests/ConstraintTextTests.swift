import Testing
import WireSpec

@testable import WireCodegen

/// One description of constraints feeds the published reference and the doc comments.
@Suite struct ConstraintTextTests {
    @Test func boundsAreWrittenAsTheSpecWroteThem() {
        #expect(ConstraintText.phrases(Constraints(minimum: 1.05)) == ["≥ 1.05"], "not ≥ 15")
        #expect(ConstraintText.phrases(Constraints(minimum: -1.5, maximum: 2)) == ["≥ -1.5", "≤ 2"])
        #expect(ConstraintText.phrases(Constraints(minimum: 0.000001)) == ["≥ 1e-06"])
        #expect(ConstraintText.phrases(Constraints(maximum: 10.0)) == ["≤ 10"])
    }

    @Test func everyConstraintHasAPhrase() {
        let all = Constraints(
            minLength: 2, maxLength: 20, minBytes: 1, maxBytes: 64, notBlank: true, prefix: "c_", pattern: "[a-z]+",
            format: .base64, maxDecodedBytes: 16, const: .string("x"), minimum: 0, maximum: 1, minItems: 1, maxItems: 4
        )
        #expect(
            ConstraintText.phrases(all) == [
                #"always `"x"`"#, "format base64", "starts with `c_`", "matches `[a-z]+`", "≥ 2 characters", "≤ 20 characters",
                "≥ 1 UTF-8 bytes", "≤ 64 UTF-8 bytes", "not blank", "≤ 16 bytes decoded", "≥ 0", "≤ 1", "≥ 1 items", "≤ 4 items",
            ])
        #expect(ConstraintText.phrases(Constraints(minLength: 1)) == ["not empty"])
    }
}
