/// The grammar of a request id, as the server echoes it in `X-Request-Id`, logs it, and stores it with a decision
/// (which a fraud label then names): 1 to ``maximumBytes`` bytes, each an ASCII letter or digit, `-`, `_`, `.` or `:`.
/// Counted and checked in bytes, not characters: one character can be any number of bytes (a letter followed by
/// combining marks), and Unicode letters and digits are not safe to log.
public enum RequestIdGrammar {
    /// The longest request id, in bytes.
    public static let maximumBytes = 128

    public static func isWellFormed(_ candidate: String) -> Bool {
        let bytes = candidate.utf8
        return (1...maximumBytes).contains(bytes.count) && bytes.allSatisfy(isAllowed)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"):
            true
        default:
            false
        }
    }
}
