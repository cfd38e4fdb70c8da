extension MetricFamily {
    /// `docs/reference/metrics.md`: every metric family `/metrics` exports, with its type and `# HELP` text, printed
    /// by `attestguard reference metrics` (a test holds the committed page equal to this).
    public static func referenceMarkdown() -> String {
        var lines = [
            "# Metrics",
            "",
            "Every `attestguard_*` family the server exports at `/metrics` (on the operator listener when there is one), with",
            "its Prometheus type and its `# HELP` text, which names the labels in parentheses. The process families",
            "(`process_*`) and the libraries' own come on top. The alerts on them are in `Dashboards/alerts/`, each with a",
            "runbook in [runbooks.md](../runbooks.md).",
            "",
            "This page is generated: `attestguard reference metrics > docs/reference/metrics.md`.",
            "",
            "| family | type | what it counts or holds |",
            "|---|---|---|",
        ]
        for family in all {
            lines.append("| `\(family.name)` | \(family.kind.rawValue) | \(MarkdownTableCell.escaping(family.help)) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
