import Foundation
import WireTestSupport

/// A small tmpfs the disk-full fault puts a node's data directory on (root only), and a file that
/// fills it.
final class SmallFilesystem: Sendable {
    let directory: URL
    private var filler: URL { directory.appendingPathComponent("filler") }

    /// Mounts a tmpfs of `megabytes` on a new directory.
    static func mount(megabytes: Int) async throws -> SmallFilesystem {
        let directory = URL(fileURLWithPath: "/tmp/clawline-faults-disk-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let status = try await run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", directory.path])
        guard status == 0 else { throw ClientTestFailure("mount -t tmpfs failed (\(status))") }
        return SmallFilesystem(directory: directory)
    }

    private init(directory: URL) { self.directory = directory }

    /// Fills every free byte.
    func fill() throws {
        guard FileManager.default.createFile(atPath: filler.path, contents: nil) else {
            throw ClientTestFailure("could not create \(filler.path) to fill the filesystem")
        }
        let handle = try FileHandle(forWritingTo: filler)
        defer { try? handle.close() }
        let block = Data(count: 64 * 1024)
        // Writes until the filesystem refuses (ENOSPC); a smaller block takes the last bytes.
        for size in [block.count, 4096, 512, 1] {
            while (try? handle.write(contentsOf: block.prefix(size))) != nil {}
        }
    }

    /// Frees what ``fill()`` took.
    func free() throws { try FileManager.default.removeItem(at: filler) }

    /// Unmounts and removes the directory.
    func unmount() {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = ["-l", directory.path]
        try? umount.run()
        umount.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func run(_ path: String, _ arguments: [String]) async throws -> Int32 {
        try await ChildProcess.run(URL(fileURLWithPath: path), arguments).status
    }
}
