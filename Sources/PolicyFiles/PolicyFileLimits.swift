/// Bounds, in UTF-8 bytes, on what a policy file's problems may repeat of it and on the paths it names. Policy files
/// are written by people but read by a server that echoes problems in `GET /v1/admin/rules`, the gateway's admin route
/// and its logs: a hostile or broken file must not make any of them large.
package enum PolicyFileLimits {
    /// A list file's path as written in `lists:`.
    package static let pathBytes = 1_024
    /// A problem's message or hint.
    package static let messageBytes = 1_024
    /// How much of a file's own text a message quotes.
    package static let excerptBytes = 48
    /// Problems reported for one load; the rest are counted in one last problem.
    package static let problems = 100

    /// `text` when it is at most `limit` bytes, else its first whole characters within `limit` bytes and `…`.
    package static func truncated(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var kept = ""
        var bytes = 0
        for scalar in text.unicodeScalars {
            bytes += scalar.utf8.count
            if bytes > limit { break }
            kept.unicodeScalars.append(scalar)
        }
        return kept + "…"
    }

    /// A short quotation of file text for a message (``excerptBytes``), with its full size when cut.
    package static func excerpt(_ text: String) -> String {
        let count = text.utf8.count
        return count > excerptBytes ? truncated(text, to: excerptBytes) + " (\(count) bytes)" : text
    }
}
