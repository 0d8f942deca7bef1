import Foundation

/// Writes generated files, touching only those whose bytes changed, so a build system sees no
/// change (and recompiles nothing) when the generated output is the same.
public enum GeneratedFileWriter {
    /// A file or directory that could not be written.
    public struct WriteError: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "cannot write '\(path)': \(reason)" }
    }

    /// Writes each file into `directory` (created if missing) unless it already holds exactly
    /// these bytes. Returns the names of the files it wrote.
    @discardableResult
    public static func writeChanged(_ files: [GeneratedFile], to directory: String) throws(WriteError) -> [String] {
        let manager = FileManager.default
        do {
            try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw WriteError(path: directory, reason: error.localizedDescription)
        }
        var written: [String] = []
        for file in files {
            let path = (directory as NSString).appendingPathComponent(file.name)
            let data = Data(file.contents.utf8)
            if manager.contents(atPath: path) == data { continue }
            do {
                try data.write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw WriteError(path: path, reason: error.localizedDescription)
            }
            written.append(file.name)
        }
        return written
    }
}
