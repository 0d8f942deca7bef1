import Foundation
import WireSpec

/// `wire generate`'s whole job: read and check a spec, generate its Swift, and write the files
/// whose bytes changed. The `wire` command and `wire-generate` (the build-tool plugin's tool) both
/// run it, so a spec builds to the same files whichever runs it.
public enum SwiftGenerationJob {
    /// How a run ended.
    public enum Outcome: Sendable, Equatable {
        /// The files are written; `written` names those whose bytes changed.
        case generated(written: [String])
        /// The spec has errors, or cannot become Swift; the diagnostics say where (exit status 1).
        case invalidSpec
        /// The spec cannot be read or the output cannot be written (exit status 2).
        case unusable(String)
    }

    /// A run's outcome and every diagnostic it found, warnings included, ordered by position.
    public struct Result: Sendable {
        public var outcome: Outcome
        public var diagnostics: [Diagnostic]
    }

    /// Generates the Swift of the spec at `specPath` into `outputDirectory`.
    public static func run(specPath: String, outputDirectory: String, options: SwiftGeneratorOptions) -> Result {
        let checked: SpecCheckResult
        do {
            checked = try SpecLoader.check(contentsOf: specPath)
        } catch {
            return Result(outcome: .unusable("error: \(error)"), diagnostics: [])
        }
        guard let spec = checked.spec else { return Result(outcome: .invalidSpec, diagnostics: checked.diagnostics) }
        let files: [GeneratedFile]
        do {
            files = try SwiftGenerator.generate(spec, options: options)
        } catch {
            return Result(outcome: .invalidSpec, diagnostics: checked.diagnostics + error.diagnostics)
        }
        do {
            let written = try GeneratedFileWriter.writeChanged(files, to: outputDirectory)
            return Result(outcome: .generated(written: written), diagnostics: checked.diagnostics)
        } catch {
            return Result(outcome: .unusable("error: \(error)"), diagnostics: checked.diagnostics)
        }
    }
}
