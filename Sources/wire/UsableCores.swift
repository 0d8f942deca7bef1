import Foundation

/// The number of cores this process may run on: on Linux the CPUs of its affinity mask (what
/// `taskset` and container CPU sets allow, read from `/proc/self/status`), which
/// `ProcessInfo.activeProcessorCount` does not consider; elsewhere the active processor count.
enum UsableCores {
    static var count: Int {
        let active = ProcessInfo.processInfo.activeProcessorCount
        #if os(Linux)
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") })
            {
                // A hexadecimal mask in comma-separated groups, e.g. "Cpus_allowed:\t00000000,00000003".
                let allowed = line.dropFirst("Cpus_allowed:".count).reduce(0) { count, character in
                    count + (character.hexDigitValue?.nonzeroBitCount ?? 0)
                }
                if allowed > 0 { return min(allowed, active) }
            }
        #endif
        return active
    }
}
