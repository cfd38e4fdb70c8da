import AttestVocabulary

extension ConfigurationKey {
    /// `docs/reference/configuration.md`: every key the server reads, with the environment variable that overrides it
    /// and what it holds, printed by `attestguard reference configuration` (a test holds the committed page equal to this).
    public static func referenceMarkdown() -> String {
        var lines = [
            "# Configuration keys",
            "",
            "Every key `attestguard serve` (and the offline commands) read from the configuration file, in the file's order.",
            "Each can be overridden by its environment variable; a list key's variable takes `a,b`. `<app>` and `<apiKey>`",
            "stand for the names under `apps.names` and `apiKeys.names`. `attestguard config check FILE` checks",
            "a file against these keys. The [operators' guide](../operators.md#running-it-for-real) shows them in a",
            "commented configuration.",
            "",
            "This page is generated: `attestguard reference configuration > docs/reference/configuration.md`.",
            "",
            "| key | environment variable | what it holds |",
            "|---|---|---|",
        ]
        for key in all {
            let list = key.isList ? " (a list)" : ""
            lines.append("| `\(key.path)` | `\(key.environmentVariable)` | \(MarkdownTableCell.escaping(key.summary))\(list) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
