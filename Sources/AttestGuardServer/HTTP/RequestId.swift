import AttestVocabulary
import Foundation

/// The id of one HTTP request, echoed in `X-Request-Id` and put in every log line about it: the caller's own id
/// when it is sane (``accepting(_:)``), else a new random one (``make()``).
enum RequestId {
    /// The longest caller's id kept, in bytes.
    static let maximumBytes = RequestIdGrammar.maximumBytes

    /// `candidate` when it can be echoed and logged as it is (``RequestIdGrammar``).
    static func accepting(_ candidate: String) -> String? {
        RequestIdGrammar.isWellFormed(candidate) ? candidate : nil
    }

    /// A random (version 4) UUID in lower case, its bytes drawn from the standard library's system generator (two
    /// `getrandom` calls) and formatted by Foundation. Foundation's `UUID()` opens, reads and closes `/dev/urandom`
    /// on every call on Linux: three system calls on every request.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 16)
        for half in 0..<2 {
            let random: UInt64 = generator.next()
            for index in 0..<8 { bytes[half * 8 + index] = UInt8(truncatingIfNeeded: random >> (index * 8)) }
        }
        bytes[6] = bytes[6] & 0x0F | 0x40  // version 4
        bytes[8] = bytes[8] & 0x3F | 0x80  // RFC 9562 variant
        let uuid = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
        return uuid.uuidString.lowercased()
    }
}
