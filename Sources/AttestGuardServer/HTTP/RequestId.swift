import AttestVocabulary

/// The id of one HTTP request, echoed in `X-Request-Id` and put in every log line about it: the caller's own id
/// when it is sane (``accepting(_:)``), else a new random one (``make()``).
enum RequestId {
    /// The longest caller's id kept, in bytes.
    static let maximumBytes = RequestIdGrammar.maximumBytes

    /// `candidate` when it can be echoed and logged as it is (``RequestIdGrammar``).
    static func accepting(_ candidate: String) -> String? {
        RequestIdGrammar.isWellFormed(candidate) ? candidate : nil
    }

    /// A random-looking (version 4) UUID in lower case: 128 bits of ``HashedCounter`` (distinct per request, across
    /// restarts and replicas; no system call), written as hexadecimal straight into the string. Foundation's `UUID()`
    /// opens, reads and closes `/dev/urandom` on Linux, then formats twice.
    static func make() -> String {
        let halves = HashedCounter.next128()
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
}
