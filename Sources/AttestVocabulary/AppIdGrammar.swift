/// The grammar of an app id, `TEAMID.bundle.id`: printable ASCII without spaces, at most ``maximumLength`` bytes, a
/// dot after the team id. Checked before any lookup (the engine), and in the files that name apps (gateway policies).
public enum AppIdGrammar {
    /// The longest app id, in bytes: a 10-character team id, a dot, and a bundle id of at most 155 characters.
    public static let maximumLength = 166

    /// Whether `appId` is at most ``maximumLength`` bytes of printable ASCII (0x21-0x7E) with at least two non-empty
    /// parts between its dots (`A.b`, `A..b`; not `Ab`, `.Ab`, `Ab.`). One pass over the bytes, no allocation: every
    /// request checks its app id.
    public static func isWellFormed(_ appId: String) -> Bool {
        guard appId.utf8.count <= maximumLength else { return false }
        var parts = 0
        var inPart = false
        for byte in appId.utf8 {
            guard byte >= 0x21, byte < 0x7F else { return false }
            if byte == UInt8(ascii: ".") {
                inPart = false
            } else if !inPart {
                inPart = true
                parts += 1
            }
        }
        return parts >= 2
    }
}
