import Synchronization

/// Values that look random, drawn without a system call, for what must be distinct and unpredictable but is no
/// secret (request ids, the access log's sample): the next number of a process-wide counter and a salt of 128 random
/// bits drawn once, hashed with SipHash (`Hasher`). Distinct numbers give distinct values with overwhelming
/// likelihood; another process, or this one after a restart, differs by its salt (also when
/// `SWIFT_DETERMINISTIC_HASHING` fixes the hash's seed); and without the salt and seed neither how many values were
/// drawn nor the next one can be read from one. A draw costs an atomic increment and a hash per 64 bits, where the
/// system generator costs a `getrandom` call per 64 bits (0.7 µs on the bench guest). (64-bit platforms: each hash
/// gives 64 bits.)
enum HashedCounter {
    /// 128 bits from the next number.
    static func next128() -> (UInt64, UInt64) {
        let number = drawn.wrappingAdd(1, ordering: .relaxed).oldValue
        return (hash(number, half: 0), hash(number, half: 1))
    }

    /// 64 bits from the next number.
    static func next() -> UInt64 {
        hash(drawn.wrappingAdd(1, ordering: .relaxed).oldValue, half: 0)
    }

    /// The numbers drawn so far in this process.
    private static let drawn = Atomic<UInt64>(0)

    /// Drawn once from the system's generator, so that values differ between processes whatever the hash's seed.
    private static let salt: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    /// One half of `number`'s value.
    static func hash(_ number: UInt64, half: UInt8) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(salt.0)
        hasher.combine(salt.1)
        hasher.combine(half)
        hasher.combine(number)
        return UInt64(truncatingIfNeeded: hasher.finalize())
    }
}
