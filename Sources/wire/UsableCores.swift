import Foundation

/// The number of cores this process may run on: on Linux the CPUs of its affinity mask (what
/// `taskset` and container CPU sets allow), which `ProcessInfo.activeProcessorCount` does not
/// consider, capped by that count (which considers CPU quotas); elsewhere the active processor count.
enum UsableCores {
    static var count: Int {
        #if os(Linux)
            if let allowed = affinityCount {
                // One core allowed is the answer: the processor count (which reads the cgroup's
                // files through Foundation, about 3% of `wire`'s start) could only be higher.
                return allowed == 1 ? 1 : min(allowed, ProcessInfo.processInfo.activeProcessorCount)
            }
        #endif
        return ProcessInfo.processInfo.activeProcessorCount
    }

    #if os(Linux)
        /// How many CPUs the affinity mask allows (`sched_getaffinity`), or `nil` when it cannot be read.
        private static var affinityCount: Int? {
            guard let getAffinity = schedGetAffinity else { return nil }
            // Room for 1,024 CPUs, as glibc's `cpu_set_t` has.
            var mask = [UInt64](repeating: 0, count: 16)
            let status = mask.withUnsafeMutableBytes { getAffinity(0, $0.count, $0.baseAddress!) }
            guard status == 0 else { return nil }
            let allowed = mask.reduce(0) { $0 + $1.nonzeroBitCount }
            return allowed > 0 ? allowed : nil
        }

        /// glibc's `sched_getaffinity`, which the Glibc module does not declare (it needs `_GNU_SOURCE`).
        private static var schedGetAffinity: (@convention(c) (Int32, Int, UnsafeMutableRawPointer) -> Int32)? {
            glibcFunction("sched_getaffinity", as: (@convention(c) (Int32, Int, UnsafeMutableRawPointer) -> Int32).self)
        }
    #endif
}
