import Foundation

/// A small, fast, seedable generator (SplitMix64): a test that draws from it makes the same
/// choices on every run and every machine, so a failure it finds can be run again.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator started from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (`bound` above zero).
    public mutating func next(upTo bound: UInt64) -> UInt64 { next() % bound }
}

extension SplitMix64 {
    /// The generator a randomised test draws from: started from `CLAWLINE_TEST_SEED` when that is
    /// set (to explore other choices, or to repeat a run's), else from the test's own `seed`, so
    /// that every ordinary run makes the same choices and a failure is never a matter of luck.
    public static func forTest(seed: UInt64) -> SplitMix64 {
        let given = ProcessInfo.processInfo.environment["CLAWLINE_TEST_SEED"].flatMap { UInt64($0) }
        return SplitMix64(seed: given.map { $0 ^ seed } ?? seed)
    }
}
