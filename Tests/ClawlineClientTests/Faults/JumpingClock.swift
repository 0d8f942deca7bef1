import Foundation

/// A wall clock for one node that the test moves: libfaketime (Debian's `faketime` package),
/// preloaded into the node, adds the offset written in a file to every wall-clock read. The
/// monotonic clock is left alone, as a real clock jump (an NTP step, a VM restored from a
/// snapshot) leaves it.
final class JumpingClock: Sendable {
    /// libfaketime, where Debian installs it, if it is installed.
    static let library: String? = {
        let root = URL(fileURLWithPath: "/usr/lib")
        let architectures = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return architectures.map { root.appendingPathComponent($0).appendingPathComponent("faketime/libfaketime.so.1").path }
            .first { FileManager.default.fileExists(atPath: $0) }
    }()

    /// The file the node reads its offset from.
    let file: URL

    /// A clock `offset` from real time (libfaketime's syntax: `+10m`, `-5m`).
    init(offset: String) throws {
        file = FileManager.default.temporaryDirectory.appendingPathComponent("clawline-faketime-\(UUID().uuidString)")
        try set(offset)
    }

    deinit { try? FileManager.default.removeItem(at: file) }

    /// What a node on this clock is started with. The offset is read again at most once a second.
    var environment: [String: String] {
        [
            "LD_PRELOAD": Self.library ?? "", "FAKETIME_TIMESTAMP_FILE": file.path, "FAKETIME_CACHE_DURATION": "1",
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",
        ]
    }

    /// Moves the clock to `offset` from real time.
    func set(_ offset: String) throws {
        try Data("\(offset)\n".utf8).write(to: file, options: .atomic)
    }
}
