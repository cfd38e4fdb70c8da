/// The grammar of an app id, `TEAMID.bundle.id`: printable ASCII without spaces, at most ``maximumLength`` bytes, a
/// dot after the team id. Checked before any lookup (the engine), and in the files that name apps (gateway policies).
public enum AppIdGrammar {
    /// The longest app id, in bytes: a 10-character team id, a dot, and a bundle id of at most 155 characters.
    public static let maximumLength = 166

    public static func isWellFormed(_ appId: String) -> Bool {
        appId.utf8.count <= maximumLength && appId.utf8.allSatisfy { (0x21..<0x7F).contains($0) } && appId.split(separator: ".").count >= 2
    }
}
