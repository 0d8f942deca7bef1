#if canImport(Glibc)
    import Glibc
#endif

/// Asks Linux to back the heap `wire validate` fills with 2 MiB pages.
///
/// A capture's sessions keep their state until the end: tens of megabytes of small allocations
/// for a large capture, taken from glibc's heap as it grows. Each new 4 KiB page of it costs a
/// page fault, and on 200,000 frames those faults took about 4% of the run. With transparent huge
/// pages one fault brings 2 MiB.
///
/// glibc does this itself only when told at start-up (`GLIBC_TUNABLES=glibc.malloc.hugetlb=1`),
/// which a process cannot tell itself. So ``reserve(_:)`` makes the heap grow in large steps,
/// grows it once at the start, and advises the new part (`madvise(MADV_HUGEPAGE)`); ``adviseGrowth()``
/// advises what the heap grew by since. Nothing else changes: memory is still taken only when it
/// is touched, and the system's setting decides whether huge pages are used at all (`never` turns
/// them off, and a kernel that has none left gives 4 KiB pages as before).
///
/// For a command-line process that exits when its work is done; a library embedded in someone's
/// server must never set its host's allocator. Elsewhere than on Linux with glibc it does nothing.
struct HugePageHeap {
    #if canImport(Glibc)
        /// The size of a transparent huge page on x86-64 and on arm64 with 4 KiB pages.
        private static let hugePage = 2 << 20
        /// The end of the heap advised so far.
        private var advisedEnd = 0
    #endif

    /// Makes the heap grow `bytes` at a time, never shrink (the process exits soon after its
    /// work), and advises the first `bytes` of it. Returns a heap that advises later growth.
    static func reserve(_ bytes: Int) -> HugePageHeap {
        var heap = HugePageHeap()
        #if canImport(Glibc)
            guard bytes >= hugePage, let mallopt = Self.mallopt, mallopt(topPad, Int32(clamping: bytes)) == 1,
                mallopt(trimThreshold, Int32.max) == 1
            else { return heap }
            let start = heapEnd
            heap.advisedEnd = start
            // Grow the heap now: allocations under the mmap threshold come from the heap, and the
            // first one the heap's free top cannot hold grows it by `bytes` more.
            var blocks: [UnsafeMutableRawPointer] = []
            while heapEnd == start, blocks.count < 1024, let block = malloc(64 << 10) { blocks.append(block) }
            for block in blocks { free(block) }
            heap.adviseGrowth()
        #endif
        return heap
    }

    /// Advises the part of the heap that grew since the last call. Cheap when it did not grow
    /// (one read of the heap's end), so a loop may call it every few thousand items.
    mutating func adviseGrowth() {
        #if canImport(Glibc)
            let end = Self.heapEnd
            guard advisedEnd > 0, end - advisedEnd >= Self.hugePage else { return }
            // Whole huge pages only: the part of the page below them holds what was allocated
            // before, with its small pages.
            let start = (advisedEnd + Self.hugePage - 1) & ~(Self.hugePage - 1)
            let stop = end & ~(Self.hugePage - 1)
            if stop > start, let address = UnsafeMutableRawPointer(bitPattern: start) {
                _ = madvise(address, stop - start, MADV_HUGEPAGE)
            }
            advisedEnd = end
        #endif
    }

    #if canImport(Glibc)
        /// glibc's `mallopt`, which the Glibc module does not declare (it is in `malloc.h`).
        private static let mallopt = glibcFunction("mallopt", as: (@convention(c) (Int32, Int32) -> Int32).self)
        /// `mallopt`'s parameters `M_TRIM_THRESHOLD` and `M_TOP_PAD` (`malloc.h`).
        private static let trimThreshold: Int32 = -1
        private static let topPad: Int32 = -2

        /// The heap's end (the program break).
        private static var heapEnd: Int { Int(bitPattern: sbrk(0)) }
    #endif
}
