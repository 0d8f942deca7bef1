import Foundation
import Testing
import WireTestSupport

/// No Swift line of the repository, hand-written or generated (the golden files), is longer than
/// 150 columns: `.swift-format` says so for hand-written code, the renderer for generated code.
@Suite struct LineLengthTests {
    static let limit = 150

    @Test func everySwiftLineFitsIn150Columns() throws {
        let root = Golden.repositoryRoot()
        var long: [String] = []
        var checked = 0
        for folder in ["Sources", "Tests", "Plugins", "Benchmarks", "Examples"] {
            let base = root.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files {
                if file.lastPathComponent.hasPrefix(".build") { files.skipDescendants() }
                guard file.pathExtension == "swift" else { continue }
                checked += 1
                let text = try String(contentsOf: file, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() where line.count > Self.limit {
                    long.append("\(file.path.dropFirst(root.path.count + 1)):\(number + 1): \(line.count) columns")
                }
            }
        }
        #expect(checked > 100, "the scan found the sources")
        #expect(long == [])
    }
}
