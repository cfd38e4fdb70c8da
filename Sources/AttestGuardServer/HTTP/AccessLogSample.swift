import Synchronization

/// Which successful answers get an access log line when `accessLog.successPercent` is below 100: about that share,
/// spread evenly and unpredictably over the requests. Each pick hashes the next number of a process-wide counter with
/// a seed drawn once (``mixed(_:)``): an atomic increment and a few multiplications. `Int.random(in:)`
/// would cost a `getrandom` system call on every request, a sampled log being what a busy server configures.
enum AccessLogSample {
    /// Whether this request's line is written, for `percent` from 1 to 99.
    static func picks(percent: Int) -> Bool {
        let number = picked.wrappingAdd(1, ordering: .relaxed).oldValue
        return Int(mixed(number &+ seed) % 100) < percent
    }

    private static let picked = Atomic<UInt64>(0)

    private static let seed: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()

    /// A multiplication by an odd constant, then SplitMix64's finalizer: each step is invertible, so distinct inputs
    /// give distinct outputs, and consecutive inputs give outputs that look independent.
    static func mixed(_ value: UInt64) -> UInt64 {
        var z = value &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
