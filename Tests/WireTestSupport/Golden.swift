import Foundation
import Testing

/// Golden-file comparison with one way to refresh: run the tests with `UPDATE_GOLDEN=1`.
public enum Golden {
    /// Whether this run rewrites golden files instead of comparing with them.
    public static var isUpdating: Bool { ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" }

    /// Compares `actual` with the file at `path`; with `UPDATE_GOLDEN=1`, writes it instead.
    public static func check(_ actual: String, against path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        check(Data(actual.utf8), against: path, sourceLocation: sourceLocation)
    }

    /// Compares bytes with the file at `path`; with `UPDATE_GOLDEN=1`, writes them instead.
    public static func check(_ actual: Data, against path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = FileManager.default.contents(atPath: path)
        if isUpdating {
            if expected != actual {
                try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                do {
                    try actual.write(to: URL(fileURLWithPath: path))
                } catch {
                    Issue.record("cannot write golden file \(path): \(error)", sourceLocation: sourceLocation)
                }
            }
            return
        }
        guard let expected else {
            Issue.record("missing golden file \(path); run `UPDATE_GOLDEN=1 swift test` and review the new file", sourceLocation: sourceLocation)
            return
        }
        if expected != actual {
            let expectedText = String(decoding: expected, as: UTF8.self)
            let actualText = String(decoding: actual, as: UTF8.self)
            Issue.record(
                """
                \(path) differs from the generated output (refresh with `UPDATE_GOLDEN=1 swift test` and review the diff):
                \(firstDifference(expectedText, actualText))
                """, sourceLocation: sourceLocation)
        }
    }

    /// The first differing line of two texts, for a readable failure.
    static func firstDifference(_ expected: String, _ actual: String) -> String {
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let b = actual.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(a.count, b.count) {
            let left = index < a.count ? String(a[index]) : "<end of file>"
            let right = index < b.count ? String(b[index]) : "<end of file>"
            if left != right {
                return "line \(index + 1):\n  golden:    \(left.prefix(300))\n  generated: \(right.prefix(300))"
            }
        }
        return "(they differ only in bytes that do not show as lines)"
    }

    /// The repository's root directory, found from a test source file's path.
    public static func repositoryRoot(from filePath: String = #filePath) -> URL {
        var url = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
            url.deleteLastPathComponent()
        }
        return url
    }

    /// The regular files of a directory with an extension, sorted by name.
    public static func files(in directory: URL, withExtension ext: String) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix("." + ext) }.sorted().map { directory.appendingPathComponent($0) }
    }
}
