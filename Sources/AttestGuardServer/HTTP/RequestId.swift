import AttestVocabulary
import Synchronization

/// The id of one HTTP request, echoed in `X-Request-Id` and put in every log line about it: the caller's own id
/// when it is sane (``accepting(_:)``), else a new random one (``make()``).
enum RequestId {
    /// The longest caller's id kept, in bytes.
    static let maximumBytes = RequestIdGrammar.maximumBytes

    /// `candidate` when it can be echoed and logged as it is (``RequestIdGrammar``).
    static func accepting(_ candidate: String) -> String? {
        RequestIdGrammar.isWellFormed(candidate) ? candidate : nil
    }

    /// A random-looking (version 4) UUID in lower case, written as hexadecimal straight into the string: the next
    /// number of a process-wide counter and a salt of 128 random bits drawn once, hashed twice with SipHash
    /// (`Hasher`) into 128 bits. Distinct numbers give distinct ids with overwhelming likelihood; another process, or
    /// this one after a restart, differs by its salt (also when `SWIFT_DETERMINISTIC_HASHING` fixes the hash's
    /// seed); and without the salt and seed neither the count of requests nor the next id can be read from one. A
    /// request costs an atomic increment and two hashes: the system generator would cost two `getrandom` system
    /// calls, and Foundation's `UUID()` opens, reads and closes `/dev/urandom` on Linux, then formats twice.
    /// (64-bit platforms: each hash gives 64 bits.)
    static func make() -> String {
        let number = issued.wrappingAdd(1, ordering: .relaxed).oldValue
        let halves: (UInt64, UInt64) = (hash(number, half: 0), hash(number, half: 1))
        return String(unsafeUninitializedCapacity: 36) { text in
            var written = 0
            for index in 0..<16 {
                var byte = UInt8(truncatingIfNeeded: (index < 8 ? halves.0 : halves.1) >> ((index % 8) * 8))
                if index == 6 { byte = byte & 0x0F | 0x40 }  // version 4
                if index == 8 { byte = byte & 0x3F | 0x80 }  // RFC 9562 variant
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[written] = UInt8(ascii: "-")
                    written += 1
                }
                text[written] = hexDigits[Int(byte >> 4)]
                text[written + 1] = hexDigits[Int(byte & 0x0F)]
                written += 2
            }
            return written
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The ids made so far in this process.
    private static let issued = Atomic<UInt64>(0)

    /// Drawn once from the system's generator, so that ids differ between processes whatever the hash's seed.
    private static let salt: (UInt64, UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }()

    private static func hash(_ number: UInt64, half: UInt8) -> UInt64 {
        var hasher = Hasher()
        hasher.combine(salt.0)
        hasher.combine(salt.1)
        hasher.combine(half)
        hasher.combine(number)
        return UInt64(truncatingIfNeeded: hasher.finalize())
    }
}
